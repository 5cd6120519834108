package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/tracefile"
)

// FindRedrive returns the session directory and the plan a redrive (planc
// run --resume) names: arg is a directory, or a session id under
// .planc/sessions/ of workDir (S34; "" the current directory), or "" for
// the newest session there; plan 0 is the session's last plan. The error
// says what to name instead.
func FindRedrive(workDir, arg string, plan int) (dir string, n int, err error) {
	if dir, err = findSession(workDir, arg); err != nil {
		return "", 0, err
	}
	if plan != 0 {
		return dir, plan, nil
	}
	s, err := session.OpenExisting(dir)
	if err != nil {
		return "", 0, err
	}
	if n = s.LastPlan(); n == 0 {
		return "", 0, fmt.Errorf("nothing to resume: the session %s has no plan", dir)
	}
	return dir, n, nil
}

// findSession returns the session directory arg names, for FindRedrive.
func findSession(workDir, arg string) (string, error) {
	sessions := filepath.Join(workDir, session.DefaultSessionsDir)
	if arg == "" {
		dir, err := tracefile.Latest(sessions)
		if err != nil {
			return "", fmt.Errorf("nothing to resume: %v; name the session", err)
		}
		return dir, nil
	}
	fi, err := os.Stat(arg)
	if errors.Is(err, fs.ErrNotExist) && filepath.Base(arg) == arg {
		byID := filepath.Join(sessions, arg)
		if fi, err := os.Stat(byID); err == nil && fi.IsDir() {
			return byID, nil
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("no session at %s", arg)
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a session directory", arg)
	}
	return arg, nil
}
