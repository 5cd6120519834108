package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
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

func (f *fakeScope) Run(_ context.Context, sp sandbox.Spec) sandbox.Result {
	f.started <- struct{}{}
	switch sp.Argv[0] {
	case "block":
		<-f.killed
		return sandbox.Result{Err: errors.New("killed: every process of the plan was ended at once")}
	case "big":
		return sandbox.Result{Output: []byte(strings.Repeat("b", sessionfmt.OutputLimit+10))}
	}
	return sandbox.Result{Output: []byte(strings.Join(sp.Argv, " ") + " in " + filepath.Base(sp.Dir) + " protecting " + filepath.Base(sp.Protect[0]))}
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
func manifest(t *testing.T, src string) *ast.Manifest { return testkit.Manifest(t, src) }

// checked loads plan text with the capabilities of m (nil: the default
// manifest), as planc run does before Run, failing the test when it is
// refused.
func checked(t testing.TB, m *ast.Manifest, src string) *check.Plan {
	t.Helper()
	if m == nil {
		m = capenv.DefaultManifest()
	}
	p, ds := check.Load([]byte(src), check.CapabilitiesOf(m))
	if p == nil {
		t.Fatalf("refused: %v", ds)
	}
	return p
}

const shellManifest = `{"name": "local/sh", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["echo", "block", "big"]}}, "tools": {"builtin": ["notes"]}}`

func TestRunInProcess(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{WorkDir: dir, Plan: checked(t, nil, `{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "hi"}}]}`)}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != session.ExitCompleted || !res.Report.Completed || res.Plan.N != 1 || res.Plan.Rel != "plans/plan-1.json" {
		t.Errorf("result %+v", res)
	}
	if filepath.Dir(res.Session.Dir) != filepath.Join(dir, session.DefaultSessionsDir) {
		t.Errorf("session at %s", res.Session.Dir)
	}
	if b, _ := os.ReadFile(filepath.Join(res.Session.Dir, sessionfmt.NotesFile)); string(b) != "hi\n" {
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
	if err := run(Config{}); err == nil || errors.As(err, &re) {
		t.Errorf("no plan: %v", err)
	}
	// E-RUN-012 through an injected probe: nothing is written.
	sh := manifest(t, shellManifest)
	shellPlan := checked(t, sh, `{"id": "p", "steps": [{"id": "a", "shell": "echo hi"}]}`)
	err := run(Config{Env: capenv.New(sh), Plan: shellPlan, probe: func() error { return errors.New("injected") }})
	if !errors.As(err, &re) || re.Code != CodeNoScope || err.Error() != "E-RUN-012: no delegated cgroup v2 scope: injected; "+ScopeFix {
		t.Errorf("no scope: %v", err)
	}
	capsulePlan := checked(t, nil, `{"id": "p", "steps": [{"id": "w", "capsule": "worker", "input": "x"}]}`)
	err = run(Config{Plan: capsulePlan, probe: func() error { return errors.New("injected") }})
	if !errors.As(err, &re) || re.Code != CodeNoScope {
		t.Errorf("capsule step without a scope: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, session.RuntimeDir)); err == nil {
		t.Error("a refused plan made a session")
	}
	// The scope fails only once the plan is written: refused, and what
	// was made for the plan is removed again: the --session directory
	// that did not exist, with its parent.
	sess := filepath.Join(dir, "new", "s")
	lost := func(string) (shellScope, error) { return nil, errors.New("gone") }
	err = run(Config{Env: capenv.New(sh), Plan: shellPlan, SessionDir: sess, probe: func() error { return nil }, open: lost})
	if !errors.As(err, &re) || re.Code != CodeNoScope {
		t.Errorf("scope lost after the probe: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the refused plan left its session directory (%v)", err)
	}
	// A --session directory that exists and is empty is left empty.
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	err = run(Config{Env: capenv.New(sh), Plan: shellPlan, SessionDir: empty, probe: func() error { return nil }, open: lost})
	if !errors.As(err, &re) || re.Code != CodeNoScope {
		t.Errorf("scope lost in an empty --session directory: %v", err)
	}
	if ents, err := os.ReadDir(empty); err != nil || len(ents) > 0 {
		t.Errorf("the refused plan left %v in the empty --session directory (%v)", ents, err)
	}
	// In a session that holds a plan already, the refused plan's file goes
	// (its number is the next plan's) and the trace is as it was.
	toolPlan := checked(t, nil, `{"id": "t", "steps": [{"id": "n", "tool": "notes", "input": {"body": "x"}}]}`)
	sess = filepath.Join(dir, "kept")
	if err := run(Config{Plan: toolPlan, SessionDir: sess}); err != nil {
		t.Fatal(err)
	}
	before := traceEvents(t, filepath.Join(sess, sessionfmt.TraceFile))
	err = run(Config{Env: capenv.New(sh), Plan: shellPlan, SessionDir: sess, probe: func() error { return nil }, open: lost})
	if !errors.As(err, &re) || re.Code != CodeNoScope {
		t.Errorf("scope lost in a kept session: %v", err)
	}
	if d := cmp.Diff(before, traceEvents(t, filepath.Join(sess, sessionfmt.TraceFile))); d != "" {
		t.Errorf("the refused plan wrote to the trace (-before +after):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(sess, sessionfmt.PlansDir, "plan-2.json")); !os.IsNotExist(err) {
		t.Errorf("the refused plan's file is left (%v)", err)
	}
	res, err := Run(context.Background(), Config{WorkDir: dir, Plan: toolPlan, SessionDir: sess})
	if err != nil || res.Plan.N != 2 {
		t.Errorf("the next plan: %v, %+v", err, res)
	}
}

// TestAdmit: a manifest without capabilities.plan.submit is refused, the
// default one admitted.
func TestAdmit(t *testing.T) {
	var re *RefusedError
	if err := Admit(manifest(t, `{"name": "local/x"}`)); !errors.As(err, &re) || !strings.Contains(err.Error(), `capsule "local/x" is not granted capabilities.plan.submit`) {
		t.Errorf("no plan.submit: %v", err)
	}
	if err := Admit(capenv.DefaultManifest()); err != nil {
		t.Error(err)
	}
}

// traceEvents returns each line's event, with exit_status for
// session_end.
func traceEvents(t *testing.T, path string) []string {
	t.Helper()
	return testkit.Events(testkit.TraceLines(t, path))
}

func TestRunFakeScope(t *testing.T) {
	dir := t.TempDir()
	sc := newFakeScope()
	sc.off = "protection is off: test"
	var notes []string
	var names []string
	sh := manifest(t, shellManifest)
	cfg := Config{
		WorkDir: dir, Env: capenv.New(sh),
		Plan: checked(t, sh, `{"id": "p", "steps": [
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
	if o := out["e"].Output; o == nil || *o != "echo hi in "+filepath.Base(dir)+" protecting "+res.Session.Info.ID {
		t.Errorf("e: %v", o)
	}
	if o := out["b"].Output; o == nil || !strings.HasSuffix(*o, "whole text at "+session.RuntimeDir+"/sessions/"+res.Session.Info.ID+"/outputs/plan-1/b.1.txt]") {
		t.Errorf("b: %.40q…", *o)
	}
	if e := out["w"].Error; e == nil || *e != capsule.Unsupported {
		t.Errorf("w: %v", e)
	}
}

// TestRunAbort: Abort kills the scope; the plan ends cancelled.
func TestRunAbort(t *testing.T) {
	dir := t.TempDir()
	sc := newFakeScope()
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	sh := manifest(t, shellManifest)
	cfg := Config{
		WorkDir: dir, Env: capenv.New(sh), Abort: abort,
		Plan:  checked(t, sh, `{"id": "p", "steps": [{"id": "b", "shell": "block"}, {"id": "n", "tool": "notes", "depends_on": ["b"], "input": {"body": "x"}}]}`),
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
	if res.Status != session.ExitCanceled || !res.Report.Canceled || len(res.Report.Steps) != 2 {
		t.Fatalf("result %+v", res.Report)
	}
	if s := res.Report.Steps[0]; s.StepID != "n" || s.Status != vm.StatusSkipped || *s.Error != vm.CanceledBeforeRun {
		t.Errorf("n: %+v", s)
	}
	if s := res.Report.Steps[1]; s.StepID != "b" || s.Status != vm.StatusFailed || !strings.HasPrefix(*s.Error, "killed") {
		t.Errorf("b: %+v", s)
	}
	ev := traceEvents(t, filepath.Join(res.Session.Dir, sessionfmt.TraceFile))
	if ev[len(ev)-1] != "session_end:canceled" {
		t.Errorf("trace ends %v", ev)
	}
}

func TestDefaultManifest(t *testing.T) {
	m := capenv.DefaultManifest()
	if m.Name != capenv.DefaultManifestName || !m.Capabilities.PlanSubmit || len(m.Capabilities.ShellAllow) != 0 || len(m.Capabilities.SpawnAllow) != 0 {
		t.Errorf("default manifest: %+v", m)
	}
	var names []string
	for _, b := range m.Tools.Builtin {
		names = append(names, b.Name)
		if !tools.IsBuiltin(b.Name) {
			t.Errorf("%q is not a built-in", b.Name)
		}
	}
	if len(names) != 5 {
		t.Errorf("tools %v", names)
	}
}
