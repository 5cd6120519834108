package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// errorLines are the first lines of the error diagnostics in out, as
// planc check prints them.
func errorLines(out string) []string {
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ": error: ") && !strings.HasPrefix(l, " ") {
			errs = append(errs, l)
		}
	}
	return errs
}

// TestCheckEqualsRun: for every JSON file under golden/ and examples/ (the
// plans, and the manifests and schemas beside them, which are refused as
// plans), planc check reports an error exactly when planc run --dry-run
// refuses the plan, with the same errors, whichever capsule applies: none
// found (the embedded default), a .planc/capsule.json found in the
// working directory, or one found in a parent that has MCP servers, whose
// tools both commands list. It drives the binary.
func TestCheckEqualsRun(t *testing.T) {
	t.Parallel()
	bin := plancBin(t)
	root := abs(t, "..")
	var plans []string
	for _, top := range []string{"golden", "examples"} {
		filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				plans = append(plans, p)
			}
			return err
		})
	}
	if len(plans) < 50 {
		t.Fatalf("only %d plans found", len(plans))
	}

	// The golden MCP server, built once: its tools have input schemas.
	server := filepath.Join(t.TempDir(), "schemas-server")
	if out, err := exec.Command("go", "build", "-o", server, "github.com/planc/planc/golden/testdata/mcp/server").CombinedOutput(); err != nil {
		t.Fatalf("go build of the golden MCP server: %v\n%s", err, out)
	}
	golden, err := os.ReadFile(filepath.Join(root, "golden/testdata/check/capsule.json"))
	if err != nil {
		t.Fatal(err)
	}
	mcpCapsule := `{"name": "local/golden-mcp", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["go"]}},
  "tools": {"builtin": ["notes", "write-file"], "mcp": {"schemas": {"command": [` + strconv.Quote(server) + `]}}}}`

	none := t.TempDir()
	here := t.TempDir()
	writeFile(t, filepath.Join(here, ".planc", "capsule.json"), string(golden))
	above := t.TempDir()
	writeFile(t, filepath.Join(above, ".planc", "capsule.json"), mcpCapsule)
	below := filepath.Join(above, "a", "b")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}

	// Every (capsule, plan) pair runs check and run --dry-run; the pairs
	// run a few at a time (each is two short processes), and are judged in
	// order afterwards.
	type outcome struct {
		out, err bytes.Buffer
		code     int
		runErr   error
	}
	type pair struct {
		name, dir, plan string
		chk, dry        outcome
	}
	var pairs []*pair
	for _, c := range []struct{ name, dir string }{{"embedded default", none}, {"found here", here}, {"found above, with MCP", below}} {
		for _, p := range plans {
			pairs = append(pairs, &pair{name: c.name, dir: c.dir, plan: p})
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4)
	for _, pr := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			for _, r := range []struct {
				args []string
				res  *outcome
			}{{[]string{"check", pr.plan}, &pr.chk}, {[]string{"run", "--dry-run", pr.plan}, &pr.dry}} {
				cmd := exec.Command(bin, r.args...)
				cmd.Dir = pr.dir
				cmd.Stdout, cmd.Stderr = &r.res.out, &r.res.err
				r.res.runErr = cmd.Run()
			}
		}()
	}
	wg.Wait()

	accepted := map[string]int{}
	for _, pr := range pairs {
		{
			c := struct{ name string }{pr.name}
			rel, _ := filepath.Rel(root, pr.plan)
			chk, dry := &pr.chk, &pr.dry
			chk.code, dry.code = exitCode(t, chk.runErr), exitCode(t, dry.runErr)
			switch {
			case !slices.Contains([]int{0, 1}, chk.code) || !slices.Contains([]int{0, 2}, dry.code):
				t.Errorf("%s, %s: check exit %d, run --dry-run exit %d\n%s\n%s", c.name, rel, chk.code, dry.code, chk.err.String(), dry.err.String())
			case (chk.code == 1) != (dry.code == 2):
				t.Errorf("%s, %s: check exit %d but run --dry-run exit %d\ncheck:\n%s\nrun:\n%s", c.name, rel, chk.code, dry.code, chk.out.String(), dry.err.String())
			default:
				if d := cmp.Diff(errorLines(chk.out.String()), errorLines(dry.err.String())); d != "" {
					t.Errorf("%s, %s: the errors differ (-check +run --dry-run):\n%s", c.name, rel, d)
				}
				if chk.code == 0 {
					accepted[c.name]++
				}
			}
		}
	}
	// The capsule found is the one used: the golden capsule accepts plans
	// with shell and capsule steps that the embedded default refuses.
	if accepted["found here"] <= accepted["embedded default"] || accepted["found above, with MCP"] == 0 {
		t.Errorf("plans accepted: %v", accepted)
	}
}
