package protect

import (
	"testing"
)

// TestRootsResolvedAtCheck: the read_only entries are resolved when a
// step's analysis first checks a write, once for the whole analysis, and
// not at all for a step that writes nothing; what is refused is the same.
func TestRootsResolvedAtCheck(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir)
	var calls int
	resolveRoot = func(p string) string {
		calls++
		return resolve(p)
	}
	t.Cleanup(func() { resolveRoot = resolve })
	if r := c.Shell([]string{"true"}, "true"); r != nil {
		t.Fatalf("true refused: %v", r)
	}
	if r := c.Shell([]string{"echo", "src/a.go"}, ""); r != nil {
		t.Fatalf("echo refused: %v", r)
	}
	if calls != 0 {
		t.Errorf("%d roots resolved for steps that write nothing; want 0", calls)
	}
	if r := c.Shell([]string{"rm", "out/x", "src2/x", "out/src"}, ""); r != nil {
		t.Fatalf("rm out/x refused: %v", r)
	}
	if calls != 2 {
		t.Errorf("%d roots resolved for one analysis of three writes; want 2 (each root once)", calls)
	}
	calls = 0
	if r := c.Shell([]string{"rm", "link/a.go"}, ""); r == nil || r.Path != dir+"/src/a.go" {
		t.Errorf("rm link/a.go: %+v, want refused as %s/src/a.go", r, dir)
	}
	if calls != 2 {
		t.Errorf("%d roots resolved; want 2", calls)
	}
}
