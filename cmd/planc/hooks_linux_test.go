package main

import (
	"bufio"
	"encoding/json"
	"github.com/planc/planc/vm"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hookWordSteps are the spellings of `rm x` (or `rm d/x`) the runtime
// splits to the same words, and scripts and wrappers that run it.
var hookWordSteps = map[string]string{
	"lead":   " rm x",
	"tab":    "rm\tx",
	"single": "'rm' x",
	"inner":  `r"m" x`,
	"script": "bash -c 'cd d && rm x'",
	"sh":     `sh -c "cd d; 'rm' ../x"`,
	"sudo":   "sh -c 'sudo rm x'",
	"path":   "bash -c '/bin/rm x'",
}

// TestRunShellHookWords: a deny hook "rm *" refuses every spelling of
// `rm x` the runtime splits to the same words, and every script or wrapper
// that runs it, through planc run, as root and as uid 65534 in a delegated
// cgroup: each step fails with the hook's refusal, the trace has its
// call_denied line, and x is still there. The control runs each step
// without the hook, one at a time, and each deletes x or d/x.
func TestRunShellHookWords(t *testing.T) {
	t.Parallel()
	attackNeedScope(t)
	denied := hookWordSteps
	capsule := func(hooks string) string {
		return `{"name": "local/hooked",
			"capabilities": {"plan": {"submit": true}, "shell": {"allow": ["rm", "bash", "sh"]}},
			"hooks": ` + hooks + `}`
	}
	t.Run("control", func(t *testing.T) {
		var ids, steps []string
		for id := range denied {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		prev := ""
		for _, id := range ids {
			dep := ""
			if prev != "" {
				dep = `, "depends_on": [` + quoteJSON(prev) + `]`
			}
			// After each step: which file it deleted, then both back.
			steps = append(steps, `{"id": `+quoteJSON(id)+`, "shell": `+quoteJSON(denied[id])+`, "on_error": "continue"`+dep+`}`,
				`{"id": `+quoteJSON("check-"+id)+`, "shell": "sh -c 'test -e x || echo gone; test -e d/x || echo gone; echo keep > x; echo keep > d/x'", "depends_on": [`+quoteJSON(id)+`]}`)
			prev = "check-" + id
		}
		dir := nobodyDir(t)
		attackFiles(t, dir, "capsule.json", capsule(`[]`), "x", "keep\n", "d/x", "keep\n",
			"plan.json", `{"id": "hooks", "steps": [`+strings.Join(steps, ",\n")+`]}`)
		r := runAs(t, attackConf{name: "control"}, plancCmd(t, dir, "--capsule", "capsule.json", "--session", filepath.Join(dir, "sess"), "plan.json"), nil)
		got := attackSteps(t, r.stdout, r.stderr)
		for _, id := range ids {
			if _, err := exec.LookPath("sudo"); err != nil && id == "sudo" {
				t.Logf("%s: %v", id, err) // the control cannot delete without it
				continue
			}
			if out := derefOr(got["check-"+id].Output); !strings.Contains(out, "gone") {
				t.Errorf("control %s (%q) deleted nothing: %s %s %s", id, denied[id], got[id].Status, derefOr(got[id].Error), derefOr(got[id].Output))
			}
		}
	})
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		sess := filepath.Join(dir, "sess")
		var steps []string
		for id, line := range denied {
			steps = append(steps, `{"id": `+quoteJSON(id)+`, "shell": `+quoteJSON(line)+`, "on_error": "continue"}`)
		}
		steps = append(steps, `{"id": "fine", "shell": "bash -c 'cd d && echo rm x'"}`)
		attackFiles(t, dir,
			"capsule.json", capsule(`[{"on": "on-shell", "match": "git *", "commit_policy": "allow"},
				{"on": "on-shell", "match": "rm *", "commit_policy": "deny"}]`),
			"x", "keep\n", "d/x", "keep\n",
			"plan.json", `{"id": "hooks", "steps": [`+strings.Join(steps, ",\n")+`]}`)
		r := runAs(t, conf, plancCmd(t, dir, "--capsule", "capsule.json", "--session", sess, "plan.json"), nil)
		stdout, stderr, code := r.stdout, r.stderr, r.code
		got := attackSteps(t, stdout, stderr)
		if code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
		}
		if s := got["fine"]; s.Status != vm.StatusSuccess || s.Output == nil || *s.Output != "rm x\n" {
			t.Errorf("fine: %+v", s)
		}
		for id, line := range denied {
			s := got[id]
			if s.Status != vm.StatusFailed || s.Error == nil || !strings.HasPrefix(*s.Error, `refused by hook 1 (on-shell, match "rm *", commit_policy deny): the command `) {
				t.Errorf("%s (%q): %s %s", id, line, s.Status, derefOr(s.Error))
			}
		}
		if s := got["script"]; s.Error != nil && !strings.Contains(*s.Error, `the command "rm x", which "bash -c cd d && rm x" runs, matches`) {
			t.Errorf("script: %s", *s.Error)
		}
		for _, f := range []string{"x", "d/x"} {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != "keep\n" {
				t.Errorf("%s: %q %v", f, b, err)
			}
		}
		// One call_denied line per refused step, naming hook 1.
		tr, err := os.Open(filepath.Join(sess, "trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		lines := map[string]bool{}
		sc := bufio.NewScanner(tr)
		for sc.Scan() {
			var l struct {
				Event  string `json:"event"`
				StepID string `json:"step_id"`
				Hook   *int   `json:"hook"`
				On     string `json:"on"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Event == "call_denied" {
				if l.Hook == nil || *l.Hook != 1 || l.On != "on-shell" || lines[l.StepID] {
					t.Errorf("call_denied line: %s", sc.Text())
				}
				lines[l.StepID] = true
			}
		}
		for id := range denied {
			if !lines[id] {
				t.Errorf("no call_denied line for %s", id)
			}
		}
		if len(lines) != len(denied) {
			t.Errorf("call_denied for %d steps, want %d", len(lines), len(denied))
		}
	})
}

// derefOr returns *s, or "<nil>".
func derefOr(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
