package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/planc/planc/host/session"
)

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
	pruned, err := session.Prune(findTraceHome().dir, time.Now().Add(-age))
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: no sessions to prune: %v\n", err)
		return exitUsage
	}
	for _, p := range pruned {
		switch {
		case p.Held != 0:
			fmt.Fprintf(e.stderr, "planc trace: kept %s: a planc is running its plan %d\n", p.Name, p.Held)
		case p.Err != nil:
			fmt.Fprintf(e.stderr, "planc trace: %v\n", p.Err)
		default:
			fmt.Fprintf(e.stdout, "removed %s\n", p.Dir)
		}
	}
	return exitOK
}
