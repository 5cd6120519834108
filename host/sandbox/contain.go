package sandbox

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// EnvProtected names the environment variable through which a planc
// hands the paths its steps must not write to the processes it starts: a
// sub-capsule's planc (`planc __capsule`) gets its parent's, and so does
// any planc a step runs. Its value is a JSON array of absolute paths.
// Scope.Run and Contain protect them too, beside the ones they are given:
// a sub-capsule applies its own manifest to its own steps, but they never
// reach what its parent protects.
const EnvProtected = "PLANC_PROTECTED"

// ProtectedEnv returns the EnvProtected=… entry that hands protect to a
// child process.
func ProtectedEnv(protect []string) string {
	b, _ := json.Marshal(cleanProtect(append(inherited(), protect...)))
	return EnvProtected + "=" + string(b)
}

// Inherited returns the paths this process was handed in EnvProtected,
// cleaned, those beneath another dropped: a sub-capsule's planc protects
// them from its built-in tools and its refusals as well as from its
// steps.
func Inherited() []string { return cleanProtect(inherited()) }

// inherited returns the paths this process was handed in EnvProtected;
// a value that is not a JSON array of strings hands none.
func inherited() []string {
	var paths []string
	if v := os.Getenv(EnvProtected); v != "" {
		if json.Unmarshal([]byte(v), &paths) != nil {
			return nil
		}
	}
	return paths
}

// cleanProtect cleans the protected paths and drops those beneath
// another (binding the outer one read-only covers them).
func cleanProtect(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != "" {
			out = append(out, filepath.Clean(p))
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	var kept []string
	for _, p := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return under(p, k) }) {
			kept = append(kept, p)
		}
	}
	return kept
}

// under reports whether p lies strictly beneath dir.
func under(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return strings.HasPrefix(p, dir+"/")
}

// Contained is a command Contain has prepared.
type Contained struct {
	// Off is the line that says why protection is off here; "" when it
	// is on, or when there was nothing to protect.
	Off string

	report, reportW *os.File // the shim's report pipe; nil without a shim
	up              chan struct{}
	setup           string // a failed set-up's reason, once up is closed
}

// Started must be called once cmd.Start has returned, whatever it
// returned, or instead of starting cmd; call it once.
func (c *Contained) Started() {
	if c.report == nil {
		close(c.up)
		return
	}
	c.reportW.Close()
	go func() {
		b, _ := io.ReadAll(c.report)
		c.report.Close()
		c.setup = string(b)
		close(c.up)
	}()
}

// Up returns a channel closed once the command runs, so that a signal to
// its process group reaches it, or once it never will (its set-up or its
// start failed, or it was not started).
func (c *Contained) Up() <-chan struct{} { return c.up }

// SetupErr waits for Up and returns why the shim could not set the
// command up (its exit status is then 127), or nil.
func (c *Contained) SetupErr() error {
	<-c.up
	if c.setup == "" {
		return nil
	}
	return errors.New(c.setup)
}

// memo remembers what a function of a list of strings (and of one more
// string) returned for the last list it was given: the steps of a plan
// pass the same protected set and the same environment, which would
// otherwise be cleaned, sorted or deduplicated again for each. The list
// is compared by content, so a caller that changes its slice gets its
// own answer.
type memo struct {
	in   []string
	also string
	out  []string
}

// newMemo remembers out for in and also. It keeps copies of both, out's
// capped at its length: no caller's change to its own slices, nor an
// append to an answer, reaches what it hands out.
func newMemo(in []string, also string, out []string) *memo {
	return &memo{in: slices.Clone(in), also: also, out: slices.Clip(append([]string{}, out...))}
}

// get returns what m remembers for in and also, nil when m is nil or
// remembers another list.
func (m *memo) get(in []string, also string) []string {
	if m == nil || m.also != also || !slices.Equal(m.in, in) {
		return nil
	}
	return m.out
}
