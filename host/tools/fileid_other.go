//go:build !unix

package tools

import (
	"fmt"
	"os"
)

// fileIdentity names the file at path as it is now: its size and
// modification time.
func fileIdentity(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano()), nil
}
