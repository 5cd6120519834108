package tracefile_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/vm"
)

// keeper is a host that keeps what a run produces the way S24 says: the
// trace lines in trace.jsonl, the whole output of every dispatched attempt
// under outputs/, the cut text in the result, and the report at the end.
// Its steps answer from out (default "ID out") and fail when fail says so.
type keeper struct {
	vm.NopHost
	dir  string
	n    int
	out  map[string]string
	fail func(id string, attempt int) bool
	// index, when set, also appends each attempt's line to the plan's
	// output index, as host does.
	index *os.File

	mu    sync.Mutex
	trace *os.File
	calls []vm.Call
}

// withIndex makes k keep the plan's output index too.
func (k *keeper) withIndex(t testing.TB) *keeper {
	path := filepath.Join(k.dir, filepath.FromSlash(sessionfmt.OutputIndexPath(k.n)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	k.index = f
	return k
}

func newKeeper(t testing.TB, dir string, n int) *keeper {
	f, err := os.OpenFile(filepath.Join(dir, sessionfmt.TraceFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &keeper{dir: dir, n: n, trace: f, out: map[string]string{}, fail: func(string, int) bool { return false }}
}

func (k *keeper) dispatch(c vm.Call) (string, error) {
	k.mu.Lock()
	k.calls = append(k.calls, c)
	k.mu.Unlock()
	whole, ok := k.out[c.Step.ID]
	if !ok {
		whole = c.Step.ID + " out"
	}
	rel := sessionfmt.OutputPath(k.n, c.Step.ID, c.Attempt)
	path := filepath.Join(k.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(whole), 0o644); err != nil {
		return "", err
	}
	text := sessionfmt.CutText(whole, sessionfmt.OutputLimit, rel)
	if k.index != nil {
		r, _ := sessionfmt.NewIndexRecord(c.Step.ID, c.Attempt, int64(len(whole)), text, rel)
		line := sessionfmt.AppendIndexRecord(nil, r)
		if _, err := k.index.Write(line); err != nil {
			return "", err
		}
	}
	if k.fail(c.Step.ID, c.Attempt) {
		return text, errors.New("exit status 1")
	}
	return text, nil
}

func (k *keeper) CallTool(_ context.Context, c vm.Call) (string, error)     { return k.dispatch(c) }
func (k *keeper) RunShell(_ context.Context, c vm.Call) (string, error)     { return k.dispatch(c) }
func (k *keeper) SpawnCapsule(_ context.Context, c vm.Call) (string, error) { return k.dispatch(c) }

func (k *keeper) Trace(e vm.Event) {
	b := e.AppendFields([]byte(`{"ts":"2025-01-02T15:04:05.000000000Z","session":"s",`))
	b = append(b, "}\n"...)
	if _, err := k.trace.Write(b); err != nil {
		panic(err)
	}
}

// keepReport writes the report where S24 keeps it, moving an earlier one
// aside as S28 says.
func keepReport(t testing.TB, dir string, n, redrive int, rep vm.Report) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(sessionfmt.ReportPath(n)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if redrive > 0 {
		if err := os.Rename(path, filepath.Join(dir, filepath.FromSlash(sessionfmt.RedriveReportPath(n, redrive-1)))); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func lower(t testing.TB, steps ...string) *ir.Program {
	t.Helper()
	src := `{"id": "p", "steps": [` + strings.Join(steps, ",\n") + `]}`
	plan, diags := check.Load([]byte(src), nil)
	if plan == nil {
		t.Fatalf("refused: %v", diags)
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// readBack is what a host does before a redrive: ReadPlan, then Prior.
func readBack(t *testing.T, dir string, n int, prog *ir.Program) (*tracefile.PlanRecord, []vm.Prior) {
	t.Helper()
	rec, err := tracefile.ReadPlan(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	prior, notes := host.RedrivePrior(rec, prog, nil)
	if len(notes) > 0 {
		t.Fatalf("notes: %v", notes)
	}
	return rec, prior
}

// TestReadPlanRedrives runs a plan, reads it back, redrives it, and so on,
// through a failure, a redrive that dies part way and a last redrive that
// completes: at each step the record and the priors are what the trace,
// outputs/ and reports/ say, and the dependents of reused steps see what
// they would have seen in one run.
func TestReadPlanRedrives(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("é", 40000) // 80,000 bytes: cut (S20)
	prog := lower(t,
		`{"id": "big", "shell": "cat"}`,
		`{"id": "flaky", "shell": "x", "depends_on": ["big"], "retries": 1}`,
		`{"id": "skip", "shell": "y", "depends_on": ["big"], "if": "$big.status != 'success'"}`,
		`{"id": "use", "tool": "notes", "depends_on": ["flaky", "skip"], "input": {"body": "$big.output", "f": "$flaky.output"}}`)
	sum := "5f2b51ca2fdc5baa31ec02e002f223aa5bb0e1c5ba6f4ba1ef4f6f0d3a0a0a0a"

	// Run 1: flaky fails both attempts and stops the plan.
	k1 := newKeeper(t, dir, 1)
	k1.out["big"] = big
	k1.fail = func(id string, _ int) bool { return id == "flaky" }
	rep1, err := vm.Run(context.Background(), prog, k1, vm.Options{PlanFile: sessionfmt.PlanFile(1), PlanSHA256: sum})
	if err != nil || rep1.FailedStep == nil {
		t.Fatalf("run 1: %v %v", err, rep1.Summary)
	}
	keepReport(t, dir, 1, 0, rep1)
	rec, prior := readBack(t, dir, 1, prog)
	if rec.Runs != 1 || rec.Redrives != 0 || !rec.Ended || rec.Outcome != "failed" || rec.Completed() || rec.SHA256 != sum || rec.ID != "p" {
		t.Errorf("record after run 1: %+v", rec)
	}
	bigText := *rep1.Steps[0].Output
	if !strings.HasSuffix(bigText, "whole text at outputs/plan-1/big.1.txt]") {
		t.Fatalf("big's text ends %q", bigText[len(bigText)-60:])
	}
	want := []vm.Prior{
		{Status: vm.StatusSuccess, Output: bigText, Attempt: 1},
		{Status: vm.StatusFailed, Error: "exit status 1", Attempt: 2},
		{Status: vm.StatusSkipped},
		{},
	}
	if d := cmp.Diff(want, prior); d != "" {
		t.Errorf("priors after run 1 (-want +got):\n%s", d)
	}

	// Redrive 1: flaky succeeds at attempt 3, then planc dies while "use"
	// runs: the trace ends at its plan_step_start, no report is written.
	k2 := newKeeper(t, dir, 1)
	k2.out["big"] = "NOT SEEN"
	rep2, err := vm.Run(context.Background(), prog, k2, vm.Options{PlanFile: sessionfmt.PlanFile(1), PlanSHA256: sum, Redrive: 1, Prior: prior})
	if err != nil || !rep2.Completed {
		t.Fatalf("redrive 1: %v %v", err, rep2.Summary)
	}
	cutAfter(t, dir, `"event":"plan_step_start","plan_id":"p","step_id":"use"`)
	rec, prior = readBack(t, dir, 1, prog)
	if rec.Runs != 2 || rec.Redrives != 1 || rec.Ended || rec.Outcome != "" {
		t.Errorf("record after redrive 1: %+v", rec)
	}
	if s := rec.Step("use"); s == nil || !s.Unsettled || !s.Dispatched || s.Attempt != 1 || s.Status != "" {
		t.Errorf("use: %+v", s)
	}
	if s := rec.Step("big"); s == nil || !s.Reused || s.Status != "success" || s.SettledAttempt != 1 {
		t.Errorf("big: %+v", s)
	}
	// flaky's success is not in the kept report (run 1's, where it failed):
	// its output comes from outputs/plan-1/flaky.3.txt.
	want = []vm.Prior{
		{Status: vm.StatusSuccess, Output: bigText, Attempt: 1},
		{Status: vm.StatusSuccess, Output: "flaky out", Attempt: 3},
		{Status: vm.StatusSkipped},
		{Attempt: 1},
	}
	if d := cmp.Diff(want, prior); d != "" {
		t.Errorf("priors after redrive 1 (-want +got):\n%s", d)
	}

	// Redrive 2: only use runs, as attempt 2, seeing what one run would
	// have shown it.
	k3 := newKeeper(t, dir, 1)
	rep3, err := vm.Run(context.Background(), prog, k3, vm.Options{PlanFile: sessionfmt.PlanFile(1), PlanSHA256: sum, Redrive: rec.Redrives + 1, Prior: prior})
	if err != nil || !rep3.Completed {
		t.Fatalf("redrive 2: %v %v", err, rep3.Summary)
	}
	keepReport(t, dir, 1, 2, rep3)
	if len(k3.calls) != 1 || k3.calls[0].Step.ID != "use" || k3.calls[0].Attempt != 2 {
		t.Fatalf("redrive 2 dispatched %v", k3.calls)
	}
	wantInput, _ := json.Marshal(map[string]string{"body": bigText, "f": "flaky out"})
	var got, wantV any
	_ = json.Unmarshal(k3.calls[0].Input, &got)
	_ = json.Unmarshal(wantInput, &wantV)
	if d := cmp.Diff(wantV, got); d != "" {
		t.Errorf("use's input (-want +got):\n%s", d)
	}
	rec, prior = readBack(t, dir, 1, prog)
	if rec.Runs != 3 || rec.Redrives != 2 || !rec.Completed() {
		t.Errorf("record after redrive 2: %+v", rec)
	}
	var statuses []string
	for _, p := range prior {
		statuses = append(statuses, p.Status.String())
	}
	// skip's condition, evaluated again in each redrive, is still false.
	if d := cmp.Diff([]string{"success", "success", "skipped", "success"}, statuses); d != "" {
		t.Errorf("statuses after the last redrive (-want +got):\n%s", d)
	}
}

// cutAfter truncates dir's trace just after the line holding marker, as a
// planc killed then would leave it.
func cutAfter(t *testing.T, dir, marker string) {
	t.Helper()
	path := filepath.Join(dir, sessionfmt.TraceFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), marker)
	if i < 0 {
		t.Fatalf("no %s in the trace", marker)
	}
	end := i + strings.IndexByte(string(b[i:]), '\n') + 1
	if err := os.WriteFile(path, b[:end], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadPlanTornAndShared: plan n's lines are told from another plan's
// in the same session (same plan id, other plan file), a torn line is a
// note, and a plan that never started is an error.
func TestReadPlanTornAndShared(t *testing.T) {
	dir := t.TempDir()
	L := func(event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(0), event, sid, fields...)
	}
	trace := L("plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "aa") +
		L("plan_step_start", "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 1) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 3, "error", nil) +
		L("plan_end", "plan_id", "p", "outcome", "failed", "failed_step", "b", "succeeded", 1, "failed", 1, "skipped", 0) +
		L("plan_start", "plan_id", "p", "plan_file", "plans/plan-2.json", "steps", 2, "sha256", "bb") +
		L("plan_step_start", "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 1) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "failed", "attempt", 1, "duration_ms", 3, "error", "x") +
		`{"ts":"2025-01-02T15:04:05Z","event":"plan_step","plan_id":"p","step_id":"b","stat` +
		L("plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "aa", "redrive", 1) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 0, "error", nil, "reused", true, "output_bytes", 5) +
		L("plan_step_start", "plan_id", "p", "step_id", "b", "kind", "shell", "attempt", 3)
	tracetest.Write(t, dir, map[string]string{sessionfmt.TraceFile: trace})
	rec, err := tracefile.ReadPlan(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Runs != 2 || rec.Redrives != 1 || rec.Ended || rec.SHA256 != "aa" {
		t.Errorf("record %+v", rec)
	}
	if a := rec.Step("a"); a == nil || a.Status != "success" || !a.Reused {
		t.Errorf("a: %+v (plan 2's failure of a was taken for plan 1's?)", a)
	}
	if b := rec.Step("b"); b == nil || !b.Unsettled || b.Attempt != 3 {
		t.Errorf("b: %+v", b)
	}
	if len(rec.Notes) != 1 || !rec.Notes[0].Skipped || rec.Notes[0].Line != 8 {
		t.Errorf("notes %v", rec.Notes)
	}
	rec2, err := tracefile.ReadPlan(dir, 2)
	if err != nil || rec2.Step("a").Status != "failed" || rec2.Ended || rec2.SHA256 != "bb" {
		t.Errorf("plan 2: %+v %v", rec2, err)
	}
	if _, err := tracefile.ReadPlan(dir, 3); err == nil || !strings.Contains(err.Error(), "no plan_start of plan 3") {
		t.Errorf("plan 3: %v", err)
	}
	if _, err := tracefile.ReadPlan(t.TempDir(), 1); err == nil {
		t.Error("no trace: no error")
	}
}

// TestPriorMissingOutput: a success whose output neither the kept report
// nor outputs/ holds runs again, with a note; a step the plan does not
// declare is a note; a cut function of the host's makes the text.
func TestPriorMissingOutput(t *testing.T) {
	dir := t.TempDir()
	L := func(event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(0), event, sid, fields...)
	}
	trace := L("plan_start", "plan_id", "p", "plan_file", "plans/plan-4.json", "steps", 3) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 2, "duration_ms", 3, "error", nil) +
		L("plan_step", "plan_id", "p", "step_id", "b", "status", "success", "attempt", 1, "duration_ms", 3, "error", nil) +
		L("plan_step", "plan_id", "p", "step_id", "gone", "status", "success", "attempt", 1, "duration_ms", 3, "error", nil)
	tracetest.Write(t, dir, map[string]string{
		sessionfmt.TraceFile:             trace,
		sessionfmt.OutputPath(4, "a", 2): strings.Repeat("x", sessionfmt.OutputLimit+1),
	})
	rec, err := tracefile.ReadPlan(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	prog := lower(t, `{"id": "a", "shell": "x"}`, `{"id": "b", "shell": "y"}`, `{"id": "c", "shell": "z"}`)
	var cuts []tracefile.KeptOutput
	prior, notes := host.RedrivePrior(rec, prog, func(k tracefile.KeptOutput, whole string) string {
		cuts = append(cuts, k)
		return sessionfmt.CutText(whole, sessionfmt.OutputLimit, "SHOWN")
	})
	want := []vm.Prior{
		{Status: vm.StatusSuccess, Output: strings.Repeat("x", sessionfmt.OutputLimit) + fmt.Sprintf("\n[cut: %d bytes in all; whole text at SHOWN]", sessionfmt.OutputLimit+1), Attempt: 2},
		{Attempt: 1},
		{},
	}
	if d := cmp.Diff(want, prior); d != "" {
		t.Errorf("priors (-want +got):\n%s", d)
	}
	if len(cuts) != 1 || cuts[0].StepID != "a" || cuts[0].Attempt != 2 || cuts[0].Path != filepath.Join(dir, "outputs", "plan-4", "a.2.txt") {
		t.Errorf("cut calls %+v", cuts)
	}
	if len(notes) != 2 || !strings.Contains(notes[0].Text, `step "b" succeeded, but its kept output cannot be read`) ||
		!strings.Contains(notes[1].Text, `step "gone", which plan 4 does not declare`) {
		t.Errorf("notes %v", notes)
	}
}

// TestPriorReportOfAnotherPlan: a kept report that is not the plan's, or
// not JSON, is passed over with a note, and outputs/ read instead.
func TestPriorReportOfAnotherPlan(t *testing.T) {
	L := func(event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(0), event, sid, fields...)
	}
	trace := L("plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 1) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 3, "error", nil)
	for name, report := range map[string]string{
		"other plan": `{"plan_id": "q", "steps": [{"step_id": "a", "status": "success", "output": "WRONG"}]}`,
		"not json":   `{"plan_id": `,
	} {
		dir := t.TempDir()
		tracetest.Write(t, dir, map[string]string{sessionfmt.TraceFile: trace, sessionfmt.OutputPath(1, "a", 1): "right", sessionfmt.ReportPath(1): report})
		rec, err := tracefile.ReadPlan(dir, 1)
		if err != nil {
			t.Fatal(err)
		}
		prior, notes := host.RedrivePrior(rec, lower(t, `{"id": "a", "shell": "x"}`), nil)
		if prior[0].Output != "right" || len(notes) != 1 || !strings.Contains(notes[0].Text, "reports/plan-1.json") {
			t.Errorf("%s: prior %+v, notes %v", name, prior, notes)
		}
	}
}

// TestVerifyPlan: the plan file is held to the SHA-256 its first
// plan_start recorded (S25); none recorded cannot vouch for it.
func TestVerifyPlan(t *testing.T) {
	data := []byte(`{"id": "p", "steps": []}`)
	rec := &tracefile.PlanRecord{N: 2, File: sessionfmt.PlanFile(2), SHA256: "6ae0f5d3dd7f3a43b8a5b0e4b2e2dd53a69a5b57a3b5e2bf6bde0e2c2fb1f0b1"}
	if err := rec.VerifyPlan(data); err == nil || !strings.Contains(err.Error(), "the file changed since") {
		t.Errorf("changed file: %v", err)
	}
	rec.SHA256 = sha256Hex(data)
	if err := rec.VerifyPlan(data); err != nil {
		t.Errorf("same file: %v", err)
	}
	rec.SHA256 = ""
	if err := rec.VerifyPlan(data); err == nil || !strings.Contains(err.Error(), "records no SHA-256") {
		t.Errorf("no SHA-256: %v", err)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
