package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/planc/planc/internal/sessionfmt"
)

// Pruned is what Prune did with one session directory old enough to go.
type Pruned struct {
	// Name is the session directory's name (its id), Dir its path.
	Name, Dir string
	// Held is the first plan of the session a planc is running (its plan
	// lock held, S27), 0 when none: a held session is kept.
	Held int
	// Err is why the directory could not be removed, nil when it was (or
	// was kept because Held).
	Err error
}

// Prune removes the session directories under root whose id says they
// started before cutoff, but never one a planc is running a plan of:
// that one is kept, with Held set (planc trace prune). It returns one
// Pruned per session old enough to go, in the directory's order; the
// error is root's that cannot be read.
func Prune(root string, cutoff time.Time) ([]Pruned, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []Pruned
	for _, ent := range entries {
		name := ent.Name()
		started, ok := idTime(name)
		if !ent.IsDir() || !ok || !started.Before(cutoff) {
			continue // not a session's name, or not old enough
		}
		p := Pruned{Name: name, Dir: filepath.Join(root, name)}
		locks, held := holdPlans(p.Dir)
		if p.Held = held; held == 0 {
			p.Err = os.RemoveAll(p.Dir)
		}
		for _, l := range locks {
			l.Unlock()
		}
		out = append(out, p)
	}
	return out, nil
}

// idTime returns the UTC time the session id name starts with; ok is
// false when name is not a session id, <IDTimeLayout>-<6 hex digits> (a
// directory named 20200101T000000Z-backup is not one, and Prune leaves
// it alone).
func idTime(name string) (started time.Time, ok bool) {
	at, suffix, found := strings.Cut(name, "-")
	if !found || len(suffix) != 6 || strings.Trim(suffix, "0123456789abcdef") != "" {
		return time.Time{}, false
	}
	started, err := time.Parse(sessionfmt.IDTimeLayout, at)
	return started, err == nil
}

// holdPlans takes the lock of every plan of the session in dir that has
// one, so that no planc starts a redrive of it while it is removed; held
// is the first plan whose lock another planc holds (0: none), and then no
// lock is kept.
func holdPlans(dir string) (locks []*PlanLock, held int) {
	files, _ := filepath.Glob(filepath.Join(dir, sessionfmt.LocksDir, "plan-*.lock"))
	var ns []int
	for _, f := range files {
		plan := sessionfmt.PlansDir + "/" + strings.TrimSuffix(filepath.Base(f), ".lock") + ".json"
		if n, ok := sessionfmt.PlanNumber(plan); ok {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	s := &Session{Dir: dir}
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
