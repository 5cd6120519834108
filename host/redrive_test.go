package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
)

// scriptScope is a shellScope whose steps are two words run in dir:
// "count X" appends a line to X.count and prints "X done"; "need F" fails
// unless the file F exists.
type scriptScope struct{ dir string }

func (s scriptScope) Run(_ context.Context, sp sandbox.Spec) sandbox.Result {
	switch sp.Argv[0] {
	case "count":
		f, err := os.OpenFile(filepath.Join(s.dir, sp.Argv[1]+".count"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return sandbox.Result{Err: err}
		}
		f.WriteString("ran\n")
		f.Close()
		return sandbox.Result{Output: []byte(sp.Argv[1] + " done")}
	case "need":
		if _, err := os.Stat(filepath.Join(s.dir, sp.Argv[1])); err != nil {
			return sandbox.Result{Output: []byte("no " + sp.Argv[1]), Err: errors.New("exit status 1")}
		}
		return sandbox.Result{Output: []byte("have " + sp.Argv[1])}
	}
	return sandbox.Result{Err: fmt.Errorf("unknown word %q", sp.Argv[0])}
}

func (scriptScope) Kill() error           { return nil }
func (scriptScope) Close() error          { return nil }
func (scriptScope) ProtectionOff() string { return "" }

const (
	scriptManifest = `{"name": "local/sh", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["count", "need"]}}, "tools": {"builtin": ["write-file"]}}`
	// scriptPlan's third step needs the file "marker"; its fourth writes
	// the first step's output to copied.txt.
	scriptPlan = `{"id": "p", "steps": [
  {"id": "a", "shell": "count a"},
  {"id": "b", "shell": "count b", "depends_on": ["a"]},
  {"id": "c", "shell": "need marker", "depends_on": ["b"]},
  {"id": "d", "tool": "write-file", "input": {"path": "copied.txt", "content": "$a.output"}, "depends_on": ["c"]}
]}`
)

// scriptConfig is a Config for scriptPlan in dir, recording the names of
// the scopes it opens.
func scriptConfig(t *testing.T, dir string, names *[]string) Config {
	sh := manifest(t, scriptManifest)
	return Config{
		WorkDir: dir, Env: capenv.New(sh), Plan: checked(t, sh, scriptPlan),
		probe: func() error { return nil },
		open: func(name string) (shellScope, error) {
			*names = append(*names, name)
			return scriptScope{dir}, nil
		},
	}
}

// resumeConfig turns cfg into the redrive of plan n of session sess.
func resumeConfig(cfg Config, sess string, n int) Config {
	cfg.Plan, cfg.SessionDir, cfg.RedrivePlan = nil, sess, n
	return cfg
}

// TestRedrive: a plan whose third step fails is redriven once its marker
// exists: the first two steps are reused (their side effects happen once),
// the third and fourth run, the fourth sees the first's recorded output;
// the report and every attempt's output are kept, the first report set
// aside; plan_start holds the plan file's SHA-256 on both runs. A second
// redrive of the completed plan is refused.
func TestRedrive(t *testing.T) {
	dir := t.TempDir()
	var names []string
	cfg := scriptConfig(t, dir, &names)
	res, err := Run(context.Background(), cfg)
	if err != nil || res.Status != session.ExitFailed || *res.Report.FailedStep != "c" || res.Redrive != 0 {
		t.Fatalf("first run: %v %+v", err, res)
	}
	sess := res.Session.Dir
	first, _ := res.Report.JSON()
	if b, _ := os.ReadFile(filepath.Join(sess, "reports", "plan-1.json")); string(b) != string(first) {
		t.Errorf("kept report %s, want %s", b, first)
	}

	testkit.WriteFiles(t, dir, "marker", "")
	res, err = Run(context.Background(), resumeConfig(cfg, sess, 1))
	if err != nil || res.Status != session.ExitCompleted || res.Redrive != 1 || res.Plan.N != 1 {
		t.Fatalf("redrive: %v %+v", err, res)
	}
	var got []string
	for _, s := range res.Report.Steps {
		got = append(got, s.StepID+":"+s.Status.String()+":"+*s.Output)
	}
	if d := cmp.Diff([]string{"a:success:a done", "b:success:b done", "c:success:have marker", "d:success:wrote 6 bytes to copied.txt"}, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	for _, f := range []string{"a.count", "b.count"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "ran\n" {
			t.Errorf("%s: %q, want one run", f, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "copied.txt")); string(b) != "a done" {
		t.Errorf("copied.txt %q", b)
	}
	if want := []string{"planc-" + res.Session.Info.ID + "-1", "planc-" + res.Session.Info.ID + "-1-redrive-1"}; !cmp.Equal(names, want) {
		t.Errorf("scopes %v, want %v", names, want)
	}
	second, _ := res.Report.JSON()
	if b, _ := os.ReadFile(filepath.Join(sess, "reports", "plan-1.json")); string(b) != string(second) {
		t.Errorf("kept report after the redrive: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "reports", "plan-1.redrive-0.json")); string(b) != string(first) {
		t.Errorf("the first run's report set aside: %s", b)
	}
	for _, f := range []string{"a.1", "b.1", "c.1", "c.2", "d.1"} {
		if _, err := os.Stat(filepath.Join(sess, "outputs", "plan-1", f+".txt")); err != nil {
			t.Errorf("kept output: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(sess, "plans", "plan-2.json")); err == nil {
		t.Error("the redrive wrote a new plan file")
	}

	src, _ := os.ReadFile(filepath.Join(sess, "plans", "plan-1.json"))
	sum := sha256.Sum256(src)
	var starts []string
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, sessionfmt.TraceFile)) {
		switch l["event"] {
		case "plan_start":
			starts = append(starts, fmt.Sprintf("%v %v", l["sha256"], l["redrive"]))
		case "plan_step":
			if l["reused"] == true {
				starts = append(starts, fmt.Sprintf("reused %v %v", l["step_id"], l["attempt"]))
			}
		}
	}
	want := []string{hex.EncodeToString(sum[:]) + " <nil>", hex.EncodeToString(sum[:]) + " 1", "reused a 1", "reused b 1"}
	if d := cmp.Diff(want, starts); d != "" {
		t.Errorf("plan_start and reused lines (-want +got):\n%s", d)
	}

	lines := len(testkit.TraceLines(t, filepath.Join(sess, sessionfmt.TraceFile)))
	_, err = Run(context.Background(), resumeConfig(cfg, sess, 1))
	var re *RefusedError
	if !errors.As(err, &re) || err.Error() != "nothing to resume: plan 1 completed" {
		t.Errorf("redrive of a completed plan: %v", err)
	}
	if n := len(testkit.TraceLines(t, filepath.Join(sess, sessionfmt.TraceFile))); n != lines {
		t.Errorf("a refused redrive wrote %d trace lines", n-lines)
	}
}

// TestRedriveRefusals: what refuses a redrive before anything runs, each
// with its message.
func TestRedriveRefusals(t *testing.T) {
	dir := t.TempDir()
	var names []string
	cfg := scriptConfig(t, dir, &names)
	res, err := Run(context.Background(), cfg)
	if err != nil || res.Status != session.ExitFailed {
		t.Fatalf("first run: %v", err)
	}
	sess := res.Session.Dir
	refused := func(name string, c Config, want string) {
		t.Helper()
		_, err := Run(context.Background(), c)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal with %q", name, err, want)
		}
	}
	refused("no session", resumeConfig(cfg, filepath.Join(dir, "none"), 1), "no session at "+filepath.Join(dir, "none"))
	refused("no plan 2", resumeConfig(cfg, sess, 2), "nothing to resume: the session "+sess+" has no plan 2 (plans/plan-2.json)")

	lock, err := res.Session.LockPlan(1, false)
	if err != nil {
		t.Fatal(err)
	}
	refused("locked", resumeConfig(cfg, sess, 1), fmt.Sprintf("plan 1 is running: planc pid %d holds its lock", os.Getpid()))
	lock.Unlock()

	// A capsule without the binary a step runs refuses the plan as check
	// would: its error names the binary (beside the warning, as a first
	// run's check gives it, that "count" is not on PATH).
	c := resumeConfig(cfg, sess, 1)
	c.Env = capenv.New(manifest(t, `{"name": "local/sh", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["count"]}}, "tools": {"builtin": ["write-file"]}}`))
	_, err = Run(context.Background(), c)
	var re *RefusedError
	if !errors.As(err, &re) || !slices.ContainsFunc(re.Diagnostics, func(d ast.Diagnostic) bool { return d.Severity == ast.Error && strings.Contains(d.Message, "need") }) {
		t.Errorf("check refusal: %v", err)
	}

	// The plan file changed since it ran.
	path := filepath.Join(sess, "plans", "plan-1.json")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(src, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("changed plan file", resumeConfig(cfg, sess, 1), "the plan is refused: plans/plan-1.json has SHA-256 ")
	if len(names) != 1 {
		t.Errorf("a refused redrive opened a scope: %v", names)
	}
	// The lock is free again after every refusal.
	if l, err := res.Session.LockPlan(1, false); err != nil {
		t.Errorf("lock after the refusals: %v", err)
	} else {
		l.Unlock()
	}
}
