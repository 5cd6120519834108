package capsule

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/shell"
)

// RunFile is a file a sub-capsule would run: what its spawner protects
// for its whole run (docs/security.md, "What a sub-capsule runs").
type RunFile struct {
	// Path is the file, absolute, its symbolic links followed when it
	// exists.
	Path string
	// Capsule is the sub-capsule that runs it; What says how.
	Capsule, What string
}

// maxReach bounds the capsules RunFiles looks at.
const maxReach = 256

// RunFiles returns, at the spawning plan's start, every file a capsule
// its steps could spawn would run — directly or through the capsules that
// one may spawn in turn, from the same roost: each allowed shell word as
// a step of that capsule would resolve it in workDir (S14), its command
// entrypoint's executable and every argument of it that names a file, its
// entrypoint plan, and each MCP server's executable and file arguments.
// The spawner protects them all for its whole run, so nothing the
// spawner's steps write changes what a sub-capsule runs. A word with a
// slash that names no file yet is returned all the same: it is refused to
// the built-in tools and the step refusals, though the kernel can protect
// only what exists.
func (d *Launcher) RunFiles() []RunFile {
	if d == nil || !d.roostWas {
		return nil
	}
	var out []RunFile
	seen := map[string]bool{}
	queue := append([]string(nil), d.allow...)
	for len(queue) > 0 && len(seen) < maxReach {
		name := queue[0]
		queue = queue[1:]
		if seen[name] || !ast.IsCapsuleName(name) {
			continue
		}
		seen[name] = true
		ns, base, _ := strings.Cut(name, "/")
		capDir := filepath.Join(d.roost.RealDir(), ns, base)
		src, err := d.roost.read(filepath.Join(ns, base, ManifestFile), filepath.Join(capDir, ManifestFile))
		if err != nil {
			continue
		}
		m, err := LoadManifest(filepath.Join(capDir, ManifestFile), src)
		if err != nil {
			continue
		}
		add := func(p, what string) {
			if p != "" {
				out = append(out, RunFile{Path: p, Capsule: name, What: what})
			}
		}
		for _, w := range ast.Names(m.Capabilities.ShellAllow) {
			add(runPath(w, d.task.WorkDir), "the file its allowed command "+quote(w)+" runs")
		}
		if e := m.Entrypoint; e != nil {
			if len(e.Command) > 0 {
				add(runPath(e.Command[0], capDir), "its command entrypoint")
				for _, a := range e.Command[1:] {
					add(argFile(a, d.task.WorkDir), "a file its command entrypoint names")
				}
			}
			if e.Plan != "" {
				add(session.AbsPath(capDir, e.Plan), "its entrypoint plan")
			}
		}
		for _, srv := range m.Tools.MCP {
			add(runPath(srv.Command[0], capDir), "the MCP server "+quote(srv.Name)+"'s command")
			for _, a := range srv.Command[1:] {
				add(argFile(a, d.task.WorkDir), "a file the MCP server "+quote(srv.Name)+" names")
				add(argFile(a, capDir), "a file the MCP server "+quote(srv.Name)+" names")
			}
		}
		queue = append(queue, ast.Names(m.Capabilities.SpawnAllow)...)
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

// runPath is the file word runs as a first word resolved from dir, its
// links followed; for a word with a slash that names nothing yet, its
// path; "" for a bare word that resolves to nothing.
func runPath(word, dir string) string {
	if p, err := shell.Resolve(word, dir); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		return p
	}
	if strings.ContainsRune(word, '/') {
		return session.AbsPath(dir, word)
	}
	return ""
}

// argFile is the file argument a names from dir, its links followed; ""
// when it names no regular file (a flag, a word, a directory).
func argFile(a, dir string) string {
	if a == "" || strings.HasPrefix(a, "-") {
		return ""
	}
	p := session.AbsPath(dir, a)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return real
}
