package capsule

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
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
// only what exists — and the capsule that would run it is never spawned
// (spawnGuard). The list is taken once, when the Launcher is made.
func (d *Launcher) RunFiles() []RunFile {
	if d == nil {
		return nil
	}
	if d.spawns == nil {
		d.reachAtStart() // a Launcher not made by NewLauncher
	}
	return d.runFiles
}

// A runGuard is a file a capsule reachable from the plan would run that
// the kernel cannot hold as it was at plan start: one that did not exist
// yet, one reached through a symbolic link in the working directory to a
// file outside it, which the plan's steps may re-point, or one reached
// through links the kernel does not hold (pinned).
type runGuard struct {
	RunFile
	// link is the symbolic link the file was reached through, "" when it
	// did not exist.
	link string
	// arg: an argument that named no file at plan start; only one that
	// names one at spawn time refuses (an argument is often no file).
	arg bool
	// pinned: a file reached through symbolic links outside the roost
	// (elsewhere, or in the working directory to a file in it), and the
	// file they led to at plan start; the spawn is refused when they lead
	// elsewhere now.
	pinned bool
	file   os.FileInfo
}

// reachAtStart reads, beneath the roost, the manifest of every capsule
// the plan may spawn and of those they may spawn, and records what they
// would run (RunFiles), which capsule may spawn which, and the files the
// kernel cannot hold (runGuard).
func (d *Launcher) reachAtStart() {
	if !d.roostWas {
		return
	}
	d.spawns = map[string][]string{}
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
				d.runFiles = append(d.runFiles, RunFile{Path: p, Capsule: name, What: what})
			}
		}
		// word is a first word resolved from dir: one with a slash must
		// exist and be reached through no link the plan may re-point.
		word := func(w, dir, what string) {
			add(runPath(w, dir), what)
			if strings.ContainsRune(w, '/') {
				d.guard(session.AbsPath(dir, w), name, what, false)
			} else if p, err := sandbox.Resolve(w, dir); err == nil {
				d.pin(p, name, what) // the file on PATH, through its links
			}
		}
		// arg is an argument naming a file from dir.
		arg := func(a, dir, what string) {
			add(argFile(a, dir), what)
			if a != "" && !strings.HasPrefix(a, "-") {
				d.guard(session.AbsPath(dir, a), name, what, true)
			}
		}
		for _, w := range ast.Names(m.Capabilities.ShellAllow) {
			word(w, d.task.WorkDir, "the file its allowed command "+quote(w)+" runs")
		}
		if e := m.Entrypoint; e != nil {
			if len(e.Command) > 0 {
				word(e.Command[0], capDir, "its command entrypoint")
				for _, a := range e.Command[1:] {
					arg(a, d.task.WorkDir, "a file its command entrypoint names")
				}
			}
			if e.Plan != "" {
				// Read, not run, but what it says runs under the
				// capsule's grants: a file the plan could write first is
				// refused as a command's would be.
				p := session.AbsPath(capDir, e.Plan)
				add(p, "its entrypoint plan")
				d.guard(p, name, "its entrypoint plan", false)
			}
		}
		for _, srv := range m.Tools.MCP {
			word(srv.Command[0], capDir, "the MCP server "+quote(srv.Name)+"'s command")
			for _, a := range srv.Command[1:] {
				arg(a, d.task.WorkDir, "a file the MCP server "+quote(srv.Name)+" names")
				arg(a, capDir, "a file the MCP server "+quote(srv.Name)+" names")
			}
		}
		d.spawns[name] = ast.Names(m.Capabilities.SpawnAllow)
		queue = append(queue, d.spawns[name]...)
	}
}

// guard records p, a file capsule would run, when the kernel cannot hold
// it as it is now: it does not exist, it is reached through a symbolic
// link beneath the working directory (outside the roost, which is held
// read-only as a whole) to a file outside it, or through links the
// kernel does not hold, which are pinned (pin).
func (d *Launcher) guard(p, capsule, what string, arg bool) {
	rf := RunFile{Path: p, Capsule: capsule, What: what}
	if _, err := os.Lstat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			d.guards = append(d.guards, runGuard{RunFile: rf, arg: arg})
		}
		return
	}
	if link := d.linkOnTheWay(p); link != "" && !d.inWorkDir(p) {
		d.guards = append(d.guards, runGuard{RunFile: rf, link: link})
		return
	}
	d.pin(p, capsule, what)
}

// pin records p, which exists, when it is reached through a symbolic link
// outside the roost: the identity of the file it leads to now, which the
// spawn checks again (spawnGuard).
func (d *Launcher) pin(p, capsule, what string) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || real == filepath.Clean(p) || d.inRoost(p) {
		return
	}
	fi, err := os.Stat(p)
	if err != nil {
		return
	}
	d.guards = append(d.guards, runGuard{RunFile: RunFile{Path: p, Capsule: capsule, What: what}, pinned: true, file: fi})
}

// inWorkDir reports whether the file p leads to now, its links
// followed, lies beneath the working directory (as ./node_modules/.bin/x
// leads to ../x/bin/x.js): such a link is pinned, the file it leads to
// protected, and a spawn after the link was re-pointed is refused (pin,
// spawnGuard, and the child's CheckPins).
func (d *Launcher) inWorkDir(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	for _, w := range []string{d.task.WorkDir, evalOr(d.task.WorkDir)} {
		if rel, err := filepath.Rel(w, real); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// evalOr is p with its links followed, or p.
func evalOr(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// inRoost reports whether p lies in the roost, which is held read-only
// whole (its links cannot be re-pointed).
func (d *Launcher) inRoost(p string) bool {
	for _, r := range []string{d.roost.Dir, d.roost.RealDir()} {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// linkOnTheWay returns the first symbolic link on the way to p (which
// exists) that lies beneath the working directory and outside the roost:
// a link the plan's steps may re-point after the plan started, so that a
// sub-capsule would run another file. "" when there is none.
func (d *Launcher) linkOnTheWay(p string) string {
	work := []string{d.task.WorkDir}
	if real, err := filepath.EvalSymlinks(d.task.WorkDir); err == nil {
		work = append(work, real)
	}
	roost := []string{d.roost.Dir, d.roost.RealDir()}
	beneath := func(p string, dirs []string) bool {
		for _, d := range dirs {
			if rel, err := filepath.Rel(d, p); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
				return true
			}
		}
		return false
	}
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	cur := "/"
	for hops := 0; len(rest) > 0 && hops < 40; {
		next := filepath.Join(cur, rest[0])
		rest = rest[1:]
		fi, err := os.Lstat(next)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if beneath(next, work) && !beneath(next, roost) {
			return next
		}
		target, err := os.Readlink(next)
		if err != nil {
			return ""
		}
		hops++
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
	}
	return ""
}

// spawnGuard refuses to spawn the capsule name when it, or a capsule it
// may spawn in turn, would run a file that did not exist when the plan
// started (which the plan's steps may have written since), a file named
// by an argument that named nothing then and names a file now, or a file
// reached through a symbolic link the plan's steps may re-point. Each is
// a file the kernel could not hold for the plan's whole run.
func (d *Launcher) spawnGuard(name string) error {
	if len(d.guards) == 0 {
		return nil
	}
	reach := map[string]bool{}
	queue := []string{name}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if reach[n] {
			continue
		}
		reach[n] = true
		queue = append(queue, d.spawns[n]...)
	}
	for _, g := range d.guards {
		if !reach[g.Capsule] {
			continue
		}
		of := g.What
		if g.Capsule != name {
			of += " of " + quote(g.Capsule) + ", which it may spawn"
		}
		switch {
		case g.pinned:
			if fi, err := os.Stat(g.Path); err != nil || !os.SameFile(fi, g.file) {
				now, _ := filepath.EvalSymlinks(g.Path)
				return fmt.Errorf("the roost refuses to spawn capsule %q: it would run %s (%s), whose symbolic links lead to %s now, "+
					"not to the file they led to when the plan started; planc runs only what a capsule resolved to at plan start; "+
					"point them back, or start the plan again", name, g.Path, of, orNothing(now))
			}
		case g.link != "":
			real, _ := filepath.EvalSymlinks(g.Path)
			return fmt.Errorf("the roost refuses to spawn capsule %q: it would run %s (%s) through the symbolic link %s in the working directory, "+
				"which the plan's steps may re-point; name the file it leads to, %q, in the capsule's manifest", name, g.Path, of, g.link, real)
		case !g.arg:
			return fmt.Errorf("the roost refuses to spawn capsule %q: it would run %s (%s), which did not exist when the plan started, "+
				"and a file the plan itself could have written is never run; make it before the run", name, g.Path, of)
		default:
			if _, err := os.Lstat(g.Path); err == nil {
				return fmt.Errorf("the roost refuses to spawn capsule %q: it would run %s (%s), which did not exist when the plan started and exists now: "+
					"a file the plan itself could have written is never run; make it before the run", name, g.Path, of)
			}
		}
	}
	return nil
}

// pinsAsAtStart refuses the spawn of name when a pin taken for it leads
// to another file than the one its path led to at plan start, for the
// files the plan start pinned (pin): a file swapped and swapped back
// around the spawn's own checks is still refused.
func (d *Launcher) pinsAsAtStart(name string, pins []Pin) error {
	for _, g := range d.guards {
		if !g.pinned || g.Capsule != name {
			continue
		}
		dev, ino, ok := fileID(g.file)
		for _, p := range pins {
			if p.Path == g.Path && (!ok || p.Dev != dev || p.Ino != ino) {
				return fmt.Errorf("the roost refuses to spawn capsule %q: it would run %s (%s), which is not the file it was when the plan started; "+
					"planc runs only what a capsule resolved to at plan start; restore it, or start the plan again", name, g.Path, g.What)
			}
		}
	}
	return nil
}

func quote(s string) string { return `"` + s + `"` }

// orNothing is p, or "nothing" when it is "".
func orNothing(p string) string {
	if p == "" {
		return "nothing"
	}
	return p
}

// runPath is the file word runs as a first word resolved from dir, its
// links followed; for a word with a slash that names nothing yet, its
// path; "" for a bare word that resolves to nothing.
func runPath(word, dir string) string {
	if p, err := sandbox.Resolve(word, dir); err == nil {
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
