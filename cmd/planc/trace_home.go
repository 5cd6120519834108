package main

import (
	"os"
	"path/filepath"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
)

// traceHome is where planc trace reads sessions: the .planc/sessions of
// the project planc run would work in here (S34) — the current directory
// or the nearest parent that holds a .planc/ with sessions or a capsule —
// as a path relative to the current directory where it can be.
type traceHome struct {
	dir   string // the sessions directory
	found bool   // a .planc/ was found; else dir is the current directory's
}

// findTraceHome returns the sessions directory planc trace reads. Walking
// up from the current directory, the first directory whose .planc/ holds
// sessions or a capsule.json is the project's root: the one whose
// sessions a planc run here writes, found upward or given by --capsule in
// that directory.
func findTraceHome() traceHome {
	wd, err := os.Getwd()
	if err != nil {
		return traceHome{dir: session.DefaultSessionsDir}
	}
	for d := wd; ; {
		sessions := filepath.Join(d, session.DefaultSessionsDir)
		fi, err := os.Stat(sessions)
		_, cerr := os.Stat(filepath.Join(d, capenv.ProjectFile))
		if err == nil && fi.IsDir() || cerr == nil {
			if rel, err := filepath.Rel(wd, sessions); err == nil {
				sessions = rel
			}
			return traceHome{dir: sessions, found: true}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return traceHome{dir: session.DefaultSessionsDir}
		}
		d = parent
	}
}

// where names the sessions directory in a message.
func (h traceHome) where() string {
	if !h.found {
		return session.DefaultSessionsDir + " in the current directory or a parent"
	}
	return h.dir
}
