//go:build !unix

package capsule

import "os"

// fileID is the identity of a file: none where there are no inodes
// (sub-capsules need Linux anyway).
func fileID(fi os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
