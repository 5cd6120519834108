package traceview

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
)

// Home is where planc trace reads sessions: the .planc/sessions of the
// project planc run would work in here (S34) — the current directory or
// the nearest parent that holds a .planc/ with sessions or a capsule — as
// a path relative to the current directory where it can be.
type Home struct {
	Dir   string // the sessions directory
	Found bool   // a .planc/ was found; else Dir is the current directory's
}

// FindHome returns the sessions directory planc trace reads. Walking up
// from the current directory, the first directory whose .planc/ holds
// sessions or a capsule.json is the project's root: the one whose sessions
// a planc run here writes, found upward or given by --capsule in that
// directory.
func FindHome() Home {
	wd, err := os.Getwd()
	if err != nil {
		return Home{Dir: session.DefaultSessionsDir}
	}
	for d := wd; ; {
		sessions := filepath.Join(d, session.DefaultSessionsDir)
		fi, err := os.Stat(sessions)
		_, cerr := os.Stat(filepath.Join(d, capenv.ProjectFile))
		if err == nil && fi.IsDir() || cerr == nil {
			if rel, err := filepath.Rel(wd, sessions); err == nil {
				sessions = rel
			}
			return Home{Dir: sessions, Found: true}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Home{Dir: session.DefaultSessionsDir}
		}
		d = parent
	}
}

// Where names the sessions directory in a message.
func (h Home) Where() string {
	if !h.Found {
		return session.DefaultSessionsDir + " in the current directory or a parent"
	}
	return h.Dir
}

// Locate returns the session path pos names (a path, or a session id
// under the project's sessions as planc trace list shows it), or the
// newest session there when pos names none. The error says what to name
// instead.
func Locate(pos []string) (string, error) {
	if len(pos) == 1 {
		arg := pos[0]
		if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) {
			byID := filepath.Join(FindHome().Dir, arg)
			if fi, err := os.Stat(byID); err == nil && fi.IsDir() && filepath.Base(arg) == arg {
				return byID, nil
			}
			return "", fmt.Errorf("no session at %s; name a session directory, its %s, or a session id that planc trace list shows", arg, sessionfmt.TraceFile)
		}
		return arg, nil
	}
	home := FindHome()
	if _, err := os.Stat(home.Dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no sessions: there is no %s; planc run makes one at the project's root, or name a session directory elsewhere", home.Where())
	}
	latest, err := tracefile.Latest(home.Dir)
	if err != nil {
		return "", fmt.Errorf("%v; name a trace file or a session directory", err)
	}
	return latest, nil
}

// OpenPlan opens the session at path without its delegations
// (tracefile.OpenTop) and picks its plan: plan, or when 0 the session's
// last. s is returned, for its notes, even when the plan is not there.
func OpenPlan(path string, plan int) (s *tracefile.Session, n int, err error) {
	s, err = tracefile.OpenTop(path)
	if err != nil {
		return nil, 0, err
	}
	if plan != 0 {
		return s, plan, nil
	}
	last, ok := s.LastPlan()
	if !ok {
		return s, 0, s.NoPlanError()
	}
	return s, last, nil
}

// ParseAge reads --older-than: a Go duration (36h, 90m) or whole days
// (7d).
func ParseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("--older-than %s: want whole days such as 7d, or a duration such as 36h", s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, bad
		}
		if maxDays := int(math.MaxInt64 / (24 * time.Hour)); n > maxDays {
			// n days would overflow a time.Duration, wrap around and
			// make every session, today's too, old enough to go.
			return 0, fmt.Errorf("--older-than %s: at most %dd, about 292 years", s, maxDays)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}
