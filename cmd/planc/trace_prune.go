package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
)

// traceIDLayout is the UTC time a session id starts with.
const traceIDLayout = "20060102T150405Z"

// parseAge reads --older-than: a Go duration (36h, 90m) or whole days (7d).
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--older-than %s: want whole days such as 7d, or a duration such as 36h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--older-than %s: want whole days such as 7d, or a duration such as 36h", s)
	}
	return d, nil
}

// tracePrune implements planc trace prune --older-than D: it removes the
// sessions under .planc/sessions whose id says they started more than D
// ago, but never one a planc is running a plan of (its plan lock held,
// S27): that one is kept, with a line on standard error. It prints one
// line per session removed.
func tracePrune(e *env, c *command, a traceArgs) int {
	if len(a.pos) > 0 {
		return e.usageError(c, "planc trace prune takes no session: it prunes the project's sessions, under %s of the current directory or the nearest parent holding a .planc/", session.DefaultSessionsDir)
	}
	if a.olderThan == "" {
		return e.usageError(c, "planc trace prune needs --older-than D (7d, 36h): the age of the sessions to remove")
	}
	age, err := parseAge(a.olderThan)
	if err != nil {
		return e.usageError(c, "%v", err)
	}
	root := findTraceHome().dir
	entries, err := os.ReadDir(root)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: no sessions to prune: %v\n", err)
		return exitUsage
	}
	cutoff := time.Now().Add(-age)
	for _, ent := range entries {
		name := ent.Name()
		if !ent.IsDir() || len(name) < len(traceIDLayout) {
			continue
		}
		started, err := time.Parse(traceIDLayout, name[:len(traceIDLayout)])
		if err != nil || !started.Before(cutoff) {
			continue // not a session's name, or not old enough
		}
		dir := filepath.Join(root, name)
		locks, held := holdPlans(dir)
		if held != 0 {
			fmt.Fprintf(e.stderr, "planc trace: kept %s: a planc is running its plan %d\n", name, held)
		} else if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		} else {
			fmt.Fprintf(e.stdout, "removed %s\n", dir)
		}
		for _, l := range locks {
			l.Unlock()
		}
	}
	return exitOK
}

// holdPlans takes the lock of every plan of the session in dir that has
// one, so that no planc starts a redrive of it while it is removed; held
// is the first plan whose lock another planc holds (0: none), and then no
// lock is kept.
func holdPlans(dir string) (locks []*session.PlanLock, held int) {
	files, _ := filepath.Glob(filepath.Join(dir, sessionfmt.LocksDir, "plan-*.lock"))
	var ns []int
	for _, f := range files {
		plan := sessionfmt.PlansDir + "/" + strings.TrimSuffix(filepath.Base(f), ".lock") + ".json"
		if n, ok := sessionfmt.PlanNumber(plan); ok {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	s := &session.Session{Dir: dir}
	for _, n := range ns {
		l, err := s.LockPlan(n, false)
		if err != nil {
			for _, l := range locks {
				l.Unlock()
			}
			return nil, n
		}
		locks = append(locks, l)
	}
	return locks, 0
}
