//go:build unix

package capsule

import (
	"os"
	"syscall"
)

// fileID is the identity of the file fi describes: its device and inode.
func fileID(fi os.FileInfo) (dev, ino uint64, ok bool) {
	if fi == nil {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}
