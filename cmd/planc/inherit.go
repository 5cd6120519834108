package main

import (
	"os"

	"github.com/planc/planc/host/capsule"
)

// inheritedFile is capsule.InheritedFile: a descriptor the launcher passed.
func inheritedFile(fd int, name string) *os.File { return capsule.InheritedFile(fd, name) }
