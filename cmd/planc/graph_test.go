package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/graph"
	"github.com/planc/planc/ir"
)

// drawing is what the graph package draws for the plan src.
func drawing(t *testing.T, src, format string) string {
	t.Helper()
	plan, ds := check.Load([]byte(src), nil)
	if plan == nil || len(ds) > 0 {
		t.Fatalf("check: %v", ds)
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if format == "mermaid" {
		err = graph.WriteMermaid(&b, prog)
	} else {
		err = graph.WriteDOT(&b, prog)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGraphAccepted: for every plan check accepts, graph prints the graph
// package's drawing in each format (dot by default), with nothing on
// stderr; Graphviz accepts the dot drawing where it is installed.
//
// Without --capsule, graph checks with the .planc/capsule.json it finds:
// the golden capsule, here.
func TestGraphAccepted(t *testing.T) {
	capsule := abs(t, filepath.Join(goldenDir, "check/capsule.json"))
	plans, _ := filepath.Glob(abs(t, filepath.Join(goldenDir, "check/ok/*.json")))
	if len(plans) == 0 {
		t.Fatal("no golden ok plans")
	}
	golden, err := os.ReadFile(capsule)
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t, map[string]string{".planc/capsule.json": string(golden)})
	dot, _ := exec.LookPath("dot")
	for _, p := range plans {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"graph", "--capsule", capsule, p},
				{"graph", "--format", "dot", p},
				{"graph", p, "--format", "mermaid"},
			} {
				format := "dot"
				if args[len(args)-1] == "mermaid" {
					format = "mermaid"
				}
				got := run(t, "", args...)
				if got.Code != 0 || got.Stderr != "" {
					t.Fatalf("%v: exit %d, stderr %q", args, got.Code, got.Stderr)
				}
				if d := cmp.Diff(drawing(t, string(src), format), got.Stdout); d != "" {
					t.Errorf("%v (-graph package +planc graph):\n%s", args, d)
				}
				if format == "dot" && dot != "" {
					cmd := exec.Command(dot, "-Tsvg", "-o", os.DevNull)
					cmd.Stdin = strings.NewReader(got.Stdout)
					if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
						t.Errorf("dot -Tsvg: %v\n%s", err, out)
					}
				}
			}
		})
	}
}

// TestGraphRefused: graph refuses what check refuses, with the very
// diagnostics check prints (on stderr) and exit 1; a plan with warnings
// only is still drawn, its warnings on stderr.
func TestGraphRefused(t *testing.T) {
	refusedAsCheck(t, "flowchart TD\n", "graph", "--format", "mermaid")
}

func TestGraphStdinAndCapsule(t *testing.T) {
	inTempDir(t, map[string]string{"capsule.json": manifest, "plan.json": cargoPlan, "bad.json": badManifest})
	const plan = `{"id": "p", "steps": [{"id": "a", "tool": "notes", "input": {"body": "x"}}, {"id": "b", "shell": "go vet", "depends_on": ["a"]}]}`
	got := run(t, plan, "graph", "--capsule", "capsule.json", "-")
	if got.Code != 0 || got.Stderr != "" || got.Stdout != drawing(t, plan, "dot") {
		t.Errorf("stdin: %+v", got)
	}
	// cargo is not in the manifest's shell.allow: refused, exit 1.
	got = run(t, "", "graph", "--capsule", "capsule.json", "plan.json")
	if got.Code != 1 || got.Stdout != "" || !strings.Contains(got.Stderr, "[shell-not-allowed]") {
		t.Errorf("capability refusal: %+v", got)
	}
	// Without --capsule, the embedded default capsule, which allows no
	// shell binary: refused, as planc run would refuse it.
	const goPlan = `{"id": "p", "steps": [{"id": "b", "shell": "go vet"}]}`
	got = run(t, goPlan, "graph", "-")
	if got.Code != 1 || got.Stdout != "" || !strings.Contains(got.Stderr, `"go" is not in capabilities.shell.allow of the embedded default capsule`) {
		t.Errorf("no capsule: %+v", got)
	}
	// With .planc/capsule.json, that one, which allows go: drawn.
	writeFile(t, filepath.Join(".planc", "capsule.json"), manifest)
	if got = run(t, goPlan, "graph", "-"); got.Code != 0 || got.Stdout != drawing(t, goPlan, "dot") {
		t.Errorf(".planc/capsule.json: %+v", got)
	}
	if got = run(t, "", "graph", "--capsule", "bad.json", "plan.json"); got.Code != 2 || !strings.Contains(got.Stderr, "capabilites") {
		t.Errorf("refused manifest: %+v", got)
	}
}

func TestGraphUsage(t *testing.T) {
	inTempDir(t, map[string]string{"plan.json": validPlan})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no plan", []string{"graph"}, "give exactly one plan"},
		{"two plans", []string{"graph", "plan.json", "plan.json"}, "give exactly one plan"},
		{"bad format", []string{"graph", "--format", "mermiad", "plan.json"}, `did you mean "mermaid"?`},
		{"unknown flag", []string{"graph", "--fromat", "dot", "plan.json"}, "did you mean --format?"},
		{"stdin twice", []string{"graph", "--capsule", "-", "-"}, "standard input (-) given more than once"},
		{"unreadable", []string{"graph", "nope.json"}, "nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, "", tt.args...)
			if got.Code != 2 || got.Stdout != "" || !strings.Contains(got.Stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", got.Code, got.Stdout, got.Stderr, tt.want)
			}
		})
	}
	if got := run(t, "", "help", "graph"); got.Code != 0 || !strings.HasPrefix(got.Stdout, "usage: planc graph ") {
		t.Errorf("help graph: %+v", got)
	}
}
