//go:build unix

package tools

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names the file at path as it is now: a file replaced or
// changed in place gets another.
func fileIdentity(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(":%d:%d", st.Dev, st.Ino)
	}
	return id, nil
}
