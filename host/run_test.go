package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/shell"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// fakeScope is a shellScope whose steps print their words, or block until
// killed for the word "block".
type fakeScope struct {
	mu      sync.Mutex
	killed  chan struct{}
	closed  bool
	off     string
	started chan struct{}
}

func newFakeScope() *fakeScope {
	return &fakeScope{killed: make(chan struct{}), started: make(chan struct{}, 10)}
}

func (f *fakeScope) Run(_ context.Context, sp shell.Spec) shell.Result {
	f.started <- struct{}{}
	switch sp.Argv[0] {
	case "block":
		<-f.killed
		return shell.Result{Err: errors.New("killed: every process of the plan was ended at once")}
	case "big":
		return shell.Result{Output: []byte(strings.Repeat("b", OutputLimit+10))}
	}
	return shell.Result{Output: []byte(strings.Join(sp.Argv, " ") + " in " + filepath.Base(sp.Dir) + " protecting " + filepath.Base(sp.Protect[0]))}
}

func (f *fakeScope) Kill() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.killed:
	default:
		close(f.killed)
	}
	return nil
}

func (f *fakeScope) Close() error { f.mu.Lock(); f.closed = true; f.mu.Unlock(); return nil }

func (f *fakeScope) ProtectionOff() string { return f.off }

// manifest parses a manifest, failing the test on any diagnostic.
func manifest(t *testing.T, src string) *ast.Manifest {
	t.Helper()
	m, ds := parser.ParseManifest([]byte(src), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatalf("manifest: %v", ds)
	}
	return m
}

const shellManifest = `{"name": "local/sh", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["echo", "block", "big"]}}, "tools": {"builtin": ["notes"]}}`

func TestRunInProcess(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{WorkDir: dir, Plan: []byte(`{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "hi"}}]}`)}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != ExitCompleted || !res.Report.Completed || res.Plan.N != 1 || res.Plan.Rel != "plans/plan-1.json" {
		t.Errorf("result %+v", res)
	}
	if filepath.Dir(res.Session.Dir) != filepath.Join(dir, DefaultSessionsDir) {
		t.Errorf("session at %s", res.Session.Dir)
	}
	if b, _ := os.ReadFile(filepath.Join(res.Session.Dir, NotesFile)); string(b) != "hi\n" {
		t.Errorf("notes.md %q", b)
	}
}

func TestRunRefusals(t *testing.T) {
	dir := t.TempDir()
	run := func(cfg Config) error {
		cfg.WorkDir = dir
		_, err := Run(context.Background(), cfg)
		return err
	}
	var re *RefusedError
	err := run(Config{Plan: []byte(`{"id": "p", "steps": [{"id": "a", "tool": "nope"}]}`)})
	if !errors.As(err, &re) || len(re.Diagnostics) == 0 || re.Diagnostics[0].Code != "unknown-tool" {
		t.Errorf("unknown tool: %v", err)
	}
	err = run(Config{Manifest: manifest(t, `{"name": "local/x"}`), Plan: []byte(`{"id": "p", "steps": []}`)})
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "capabilities.plan.submit") {
		t.Errorf("no plan.submit: %v", err)
	}
	// E-RUN-012 through an injected probe: nothing is written.
	shellPlan := []byte(`{"id": "p", "steps": [{"id": "a", "shell": "echo hi"}]}`)
	err = run(Config{Manifest: manifest(t, shellManifest), Plan: shellPlan, probe: func() error { return errors.New("injected") }})
	if !errors.As(err, &re) || re.Code != CodeNoScope || err.Error() != "E-RUN-012: no delegated cgroup v2 scope: injected" {
		t.Errorf("no scope: %v", err)
	}
	capsulePlan := []byte(`{"id": "p", "steps": [{"id": "w", "capsule": "worker", "input": "x"}]}`)
	err = run(Config{Plan: capsulePlan, probe: func() error { return errors.New("injected") }})
	if !errors.As(err, &re) || re.Code != CodeNoScope {
		t.Errorf("capsule step without a scope: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, RuntimeDir)); err == nil {
		t.Error("a refused plan made a session")
	}
	// The scope fails only once the plan is written: refused, and the
	// session records it.
	sess := filepath.Join(dir, "s")
	err = run(Config{Manifest: manifest(t, shellManifest), Plan: shellPlan, SessionDir: sess,
		probe: func() error { return nil },
		open:  func(string) (shellScope, error) { return nil, errors.New("gone") }})
	if !errors.As(err, &re) || re.Code != CodeNoScope {
		t.Errorf("scope lost after the probe: %v", err)
	}
	lines := readTraceEvents(t, filepath.Join(sess, TraceFile))
	if got := strings.Join(lines, " "); got != "session_start session_end:failed" {
		t.Errorf("trace: %s", got)
	}
}

// readTraceEvents returns each line's event, with exit_status for
// session_end.
func readTraceEvents(t *testing.T, path string) []string {
	t.Helper()
	_, objs := readTrace(t, path)
	var out []string
	for _, o := range objs {
		e := o["event"].(string)
		if s, ok := o["exit_status"].(string); ok {
			e += ":" + s
		}
		out = append(out, e)
	}
	return out
}

func TestRunFakeScope(t *testing.T) {
	dir := t.TempDir()
	sc := newFakeScope()
	sc.off = "protection is off: test"
	var notes []string
	var names []string
	cfg := Config{
		WorkDir: dir, Manifest: manifest(t, shellManifest),
		Plan: []byte(`{"id": "p", "steps": [
			{"id": "e", "shell": "echo hi"},
			{"id": "b", "shell": "big"},
			{"id": "w", "capsule": "worker", "input": "x", "on_error": "continue"}
		]}`),
		Notice: func(s string) { notes = append(notes, s) },
		probe:  func() error { return nil },
		open:   func(name string) (shellScope, error) { names = append(names, name); return sc, nil },
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "planc-"+res.Session.Info.ID+"-1" {
		t.Errorf("scope names %v", names)
	}
	if !sc.closed || len(notes) != 1 || notes[0] != sc.off {
		t.Errorf("closed %v, notices %q", sc.closed, notes)
	}
	out := map[string]vm.StepReport{}
	for _, s := range res.Report.Steps {
		out[s.StepID] = s
	}
	if o := out["e"].Output; o == nil || *o != "echo hi in "+filepath.Base(dir)+" protecting plans" {
		t.Errorf("e: %v", o)
	}
	if o := out["b"].Output; o == nil || !strings.HasSuffix(*o, "whole text at "+RuntimeDir+"/sessions/"+res.Session.Info.ID+"/outputs/plan-1/b.txt]") {
		t.Errorf("b: %.40q…", *o)
	}
	if e := out["w"].Error; e == nil || *e != CapsuleUnsupported {
		t.Errorf("w: %v", e)
	}
}

// TestRunAbort: Abort kills the scope; the plan ends cancelled.
func TestRunAbort(t *testing.T) {
	dir := t.TempDir()
	sc := newFakeScope()
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	cfg := Config{
		WorkDir: dir, Manifest: manifest(t, shellManifest), Abort: abort,
		Plan:  []byte(`{"id": "p", "steps": [{"id": "b", "shell": "block"}, {"id": "n", "tool": "notes", "depends_on": ["b"], "input": {"body": "x"}}]}`),
		probe: func() error { return nil },
		open:  func(string) (shellScope, error) { return sc, nil },
	}
	go func() {
		<-sc.started
		cancel()
		close(abort)
	}()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != ExitCanceled || !res.Report.Canceled || len(res.Report.Steps) != 2 {
		t.Fatalf("result %+v", res.Report)
	}
	if s := res.Report.Steps[0]; s.StepID != "n" || s.Status != vm.StatusSkipped || *s.Error != vm.CanceledBeforeRun {
		t.Errorf("n: %+v", s)
	}
	if s := res.Report.Steps[1]; s.StepID != "b" || s.Status != vm.StatusFailed || !strings.HasPrefix(*s.Error, "killed") {
		t.Errorf("b: %+v", s)
	}
	ev := readTraceEvents(t, filepath.Join(res.Session.Dir, TraceFile))
	if ev[len(ev)-1] != "session_end:canceled" {
		t.Errorf("trace ends %v", ev)
	}
}
