package session

import (
	"path/filepath"

	"github.com/planc/planc/ast"
)

// Capsule is where a capsule runs, as far as what it protects goes.
type Capsule struct {
	Manifest     *ast.Manifest
	ManifestDir  string // the manifest's relative paths start here
	ManifestPath string // the manifest's file; "" for none
	SessionDir   string
	WorkDir      string // "" leaves its .planc out
	Roost        string // "" for none
}

// ProtectedPath is a path the capsule's processes may not write, and
// what it is for the refusals; What is "" for a read_only entry of the
// manifest.
type ProtectedPath struct {
	Path, What string
}

// Protected is the one list of what every process a capsule runs may not
// write, whoever builds the rest: a plan's steps and tools (host.Run adds
// the allowed binaries, the sub-capsules' files, the trust record and
// what a parent protects) and a command entrypoint (the sub-capsule's
// child). In order: the session directory, the working directory's
// .planc, the manifest's read_only paths, the roost, the manifest; each
// absolute, "" ones left out.
func (c Capsule) Protected() []ProtectedPath {
	var out []ProtectedPath
	add := func(p, what string) {
		if p != "" {
			out = append(out, ProtectedPath{AbsPath("", p), what})
		}
	}
	add(c.SessionDir, "the session directory: its plan files, trace and reports are planc's alone")
	if c.WorkDir != "" {
		// The working directory's .planc: every session in it (a redrive
		// reuses what their records say) and the project's capsule.json,
		// which the next planc run here would run under.
		add(filepath.Join(c.WorkDir, RuntimeDir), "planc's own directory: its sessions, and the capsule.json a later planc run here runs under")
	}
	for _, p := range c.Manifest.Capabilities.ReadOnly {
		add(AbsPath(c.ManifestDir, p.Name), "")
	}
	add(c.Roost, "the roost, whose capsules a capsule step runs")
	add(c.ManifestPath, "the capsule manifest the plan runs under")
	return out
}
