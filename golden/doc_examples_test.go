package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/internal/testkit"
)

// docExampleFiles are the documents whose JSON examples must check clean
// and, when whole plans, run (S31, S32).
var docExampleFiles = []string{"../docs/plans.md", "../README.md"}

// docExample is one JSON plan or step a document shows.
type docExample struct {
	where string // FILE:LINE
	src   string
	whole bool // a plan, not a step to wrap
}

var (
	fenced   = regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```")
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	refWord  = regexp.MustCompile(`\$([A-Za-z0-9_-]+)\.[A-Za-z0-9_]+`)
)

// docExamples returns the plans and steps the documents show: fenced
// blocks and inline code that parse as a JSON object with "steps" (a plan)
// or with "id" and a step kind (a step). The README's table of diagnostic
// codes is left out: its examples are there to show each finding.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	var out []docExample
	for _, f := range docExampleFiles {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		if i, j := strings.Index(text, "<!-- codes:begin -->"), strings.Index(text, "<!-- codes:end -->"); i >= 0 && j > i {
			text = text[:i] + strings.Repeat("\n", strings.Count(text[i:j], "\n")) + text[j:]
		}
		add := func(off int, src string) {
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(src), &obj) != nil {
				return
			}
			ex := docExample{where: filepath.Base(f) + ":" + itoa(strings.Count(text[:off], "\n")+1), src: src}
			switch {
			case obj["steps"] != nil:
				ex.whole = true
			case obj["id"] != nil && (obj["tool"] != nil || obj["shell"] != nil || obj["capsule"] != nil):
			default:
				return
			}
			out = append(out, ex)
		}
		for _, m := range fenced.FindAllStringSubmatchIndex(text, -1) {
			if lang := text[m[2]:m[3]]; lang == "json" || lang == "" {
				add(m[0], text[m[4]:m[5]])
			}
		}
		rest := fenced.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) })
		for _, m := range codeSpan.FindAllStringSubmatchIndex(rest, -1) {
			add(m[0], rest[m[2]:m[3]])
		}
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// wrapStep makes a plan of a step the docs show alone: each step it names
// (in depends_on or a reference) comes first as a notes step with the
// defaults, so a condition that could not hold after them still shows.
func wrapStep(t *testing.T, src string) string {
	t.Helper()
	var step struct {
		ID        string   `json:"id"`
		DependsOn []string `json:"depends_on"`
	}
	if err := json.Unmarshal([]byte(src), &step); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range step.DependsOn {
		names = append(names, d)
	}
	for _, m := range refWord.FindAllStringSubmatch(src, -1) {
		names = append(names, m[1])
	}
	var steps []string
	seen := map[string]bool{step.ID: true}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			steps = append(steps, `{"id": `+strings.TrimSpace(string(mustJSON(n)))+`, "tool": "notes"}`)
		}
	}
	steps = append(steps, src)
	return `{"id": "doc-example", "steps": [` + strings.Join(steps, ",\n") + `]}`
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// shellWords returns the first word of each shell step's command line:
// the binaries a manifest must allow for the plan.
func shellWords(t *testing.T, plan string) []string {
	t.Helper()
	var p struct {
		Steps []struct {
			Shell   *string `json:"shell"`
			Capsule *string `json:"capsule"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(plan), &p); err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, s := range p.Steps {
		if s.Capsule != nil {
			t.Fatalf("the example spawns a capsule; give this test a roost to run it with")
		}
		if s.Shell != nil {
			if f := strings.Fields(*s.Shell); len(f) > 0 && !slices.Contains(words, f[0]) {
				words = append(words, f[0])
			}
		}
	}
	return words
}

// TestWrapStep: a step shown alone is wrapped with the steps it names,
// with their defaults, and nothing else.
func TestWrapStep(t *testing.T) {
	got := wrapStep(t, `{"id": "notify", "tool": "notes", "depends_on": ["test", "lint"], "if": "$test.status == 'failed' || $lint.status == 'failed' || $notify.output == ''", "input": {"log": "$build.output"}}`)
	var p struct {
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal([]byte(got), &p); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	var ids []string
	for _, s := range p.Steps {
		ids = append(ids, s["id"].(string))
	}
	if want := []string{"test", "lint", "build", "notify"}; !slices.Equal(ids, want) {
		t.Errorf("steps %v, want %v", ids, want)
	}
	if len(p.Steps[0]) != 2 {
		t.Errorf("a named step has more than the defaults: %v", p.Steps[0])
	}
}

// TestDocExamples: every JSON plan and step docs/plans.md and the README
// show passes planc check --werror under a capsule that allows its shell
// binaries (a step shown alone, wrapped with the steps it names), so none
// is refused and none shows a step that can never run (never-runs, S32);
// and every whole plan runs to completion with planc run.
func TestDocExamples(t *testing.T) {
	exs := docExamples(t)
	if len(exs) < 2 {
		t.Fatalf("found %d examples in %v; the extraction lost them", len(exs), docExampleFiles)
	}
	bin := testkit.PlancBinary(t)
	for _, ex := range exs {
		t.Run(ex.where, func(t *testing.T) {
			plan := ex.src
			if !ex.whole {
				plan = wrapStep(t, ex.src)
			}
			dir := t.TempDir()
			allow := shellWords(t, plan)
			manifest := `{"name": "local/docs", "version": "0.1.0",
  "capabilities": {"plan": {"submit": true}, "shell": {"allow": ` + string(mustJSON(append([]string{}, allow...))) + `}},
  "tools": {"builtin": ` + string(mustJSON(ast.BuiltinTools())) + `}}`
			testkit.WriteFiles(t, dir, "capsule.json", manifest, "plan.json", plan)
			run := func(args ...string) (string, string, int) {
				cmd := exec.Command(bin, args...)
				cmd.Dir = dir
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return stdout.String(), stderr.String(), code
			}
			if out, errOut, code := run("check", "--werror", "--capsule", "capsule.json", "plan.json"); code != 0 || out != "" {
				t.Fatalf("planc check --werror: exit %d\n%s%s\nplan:\n%s", code, out, errOut, plan)
			}
			if !ex.whole {
				return
			}
			if len(allow) > 0 {
				testkit.NeedScope(t)
			}
			// A whole plan runs as a reader would run it: in a copy of the
			// repository's examples (the plans read them).
			if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../examples")); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run("run", "--capsule", "capsule.json", "--progress=off", "plan.json")
			var rep struct {
				Completed bool `json:"completed"`
				Steps     []struct {
					StepID string `json:"step_id"`
					Status string `json:"status"`
				} `json:"steps"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Completed {
				t.Fatalf("planc run: exit %d\n%s%s", code, out, errOut)
			}
			t.Logf("ran: %+v", rep.Steps)
		})
	}
}
