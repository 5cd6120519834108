package host

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
)

// ScopeFix is how to get a delegated cgroup v2 scope, the fix that ends
// E-RUN-012 on Linux (docs/running.md says more).
const ScopeFix = "run planc as root, or as a normal user under systemd-run --user --scope -p Delegate=yes planc run …, or in a container with a writable cgroup namespace (docs/running.md#e-run-012)"

// scopeRefusal is E-RUN-012's line for err, the error of a probe or of
// opening the scope; on Linux it ends with ScopeFix.
func scopeRefusal(err error) string {
	msg := sandbox.ScopeRefusal(err)
	if runtime.GOOS == "linux" {
		msg += "; " + ScopeFix
	}
	return msg
}

// begin writes session_start, once: when nothing can refuse the plan any
// more, so that a refused plan leaves no trace line.
func (r *run) begin() {
	if !r.begun {
		r.begun = true
		r.tr.Start(r.info)
	}
}

// openSession opens the session a run writes to: dir when given
// (session.Open, which makes it if need be), else a new one under
// workDir/.planc/sessions. undo removes what this call made, for a plan
// refused before it began, so that a refused plan creates nothing: the
// session directory and the parents it made (each only while empty) when
// the session is new, what it wrote in an empty directory given as the
// session, else the plan file pf (nil: none written), whose
// number the session's next plan then takes.
//
// Two runs making the same --session directory at once can race: the one
// refused may remove the directory the other just reused.
func openSession(workDir, dir string, info sessionfmt.SessionInfo) (s *session.Session, undo func(pf *session.PlanFile), err error) {
	if dir == "" {
		s, undoNew, err := CreateSession(workDir, info)
		if err != nil {
			return nil, nil, err
		}
		return s, func(*session.PlanFile) { undoNew() }, nil
	}
	made := missingDirs(dir)
	ents, _ := os.ReadDir(dir)
	wasEmpty := len(made) == 0 && len(ents) == 0
	if s, err = session.Open(dir, info); err != nil {
		return nil, nil, err
	}
	return s, func(pf *session.PlanFile) {
		switch {
		case len(made) > 0:
			removeMade(s.Dir, made)
		case wasEmpty:
			// An empty directory given as the session: it is left empty.
			now, _ := os.ReadDir(s.Dir)
			for _, e := range now {
				os.RemoveAll(filepath.Join(s.Dir, e.Name()))
			}
		case pf != nil:
			os.Remove(pf.Path)
			// Its lock (released by now) goes too, and locks/ when
			// this plan made it.
			lock := filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.LockFile(pf.N)))
			os.Remove(lock)
			os.Remove(filepath.Dir(lock)) // only when empty
		}
	}, nil
}

// CreateSession makes a new session directory under
// workDir/.planc/sessions, as session.Create does, and returns with it
// undo, which removes that directory again, and .planc/sessions and .planc
// when this call made them and they are empty: for a session whose first
// plan is refused (planc serve makes its session before its first plan).
func CreateSession(workDir string, info sessionfmt.SessionInfo) (s *session.Session, undo func(), err error) {
	root := filepath.Join(workDir, session.DefaultSessionsDir)
	made := missingDirs(root)
	if s, err = session.Create(root, info); err != nil {
		return nil, nil, err
	}
	return s, func() { removeMade(s.Dir, made) }, nil
}

// missingDirs lists dir and each of its parents that does not exist yet,
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		parent := filepath.Dir(d)
		if parent == d {
			return out
		}
		d = parent
	}
}

// removeMade removes the session directory dir and everything in it, then
// the directories of made (deepest first), each only while it is empty: a
// run that began meanwhile keeps what it uses.
func removeMade(dir string, made []string) {
	os.RemoveAll(dir)
	for _, d := range made {
		os.Remove(d)
	}
}
