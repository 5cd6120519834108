// Package buildinfo says what a binary was built from: the main module's
// version the build recorded, the Go version and the platform.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Module returns the main module's version from the build info, or "" when
// the build recorded none (go run, go test, a plain go build without VCS
// stamping report "(devel)").
func Module() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return moduleOf(bi)
}

// moduleOf is Module for the build info bi.
func moduleOf(bi *debug.BuildInfo) string {
	if bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	return bi.Main.Version
}

// Line formats a version line: the program's name and version, the module
// version recorded in the binary in parentheses unless module is "", and
// the Go version, operating system and architecture.
func Line(name, version, module string) string {
	s := name + " " + version
	if module != "" {
		s += " (module " + module + ")"
	}
	return fmt.Sprintf("%s %s %s/%s", s, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
