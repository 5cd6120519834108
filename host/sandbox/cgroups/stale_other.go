//go:build !linux

package cgroups

import (
	"errors"
	"runtime"
)

// RemoveScope does nothing where there are no cgroups: the process groups
// of a planc that died are not found again.
func RemoveScope(name string) error { return nil }

// OwnDir fails where there is no cgroup v2: OpenScope makes no
// cgroup here, so there is nowhere to look for scopes left behind.
func OwnDir() (string, error) {
	return "", errors.New("no cgroup v2 on " + runtime.GOOS)
}
