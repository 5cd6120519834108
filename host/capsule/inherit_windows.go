package capsule

import "os"

// InheritedFile returns nil: on Windows no launcher passes descriptors.
func InheritedFile(fd int, name string) *os.File { return nil }
