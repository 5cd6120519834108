package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// capsuleRun is RunCapsule's outcome in a test: its exit status, its
// standard streams, its status lines and its session directory.
type capsuleRun struct {
	code           session.ExitCode
	stdout, stderr string
	status         []string
	session        string
}

// runTestCapsule runs RunCapsule in-process on the manifest text of the
// roost's local/w, with files beside it and the objective on standard
// input.
func runTestCapsule(t *testing.T, ctx context.Context, manifest, objective string, files ...string) capsuleRun {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv(capsule.EnvObjectiveFile, "") // RunCapsule sets it
	dir := t.TempDir()
	roost := testkit.WriteRoost(t, dir, "local/w", manifest)
	testkit.WriteFiles(t, filepath.Join(roost, "local/w"), files...)
	sess := filepath.Join(dir, "parent", sessionfmt.DelegationsDir, "plan-1-w-1")
	var so, se, st bytes.Buffer
	cfg := capsule.ChildConfig{
		Manifest: filepath.Join(roost, "local/w", capsule.ManifestFile), SessionDir: sess, Roost: roost, WorkDir: dir,
		SpawnedBy: "parent-1", DelegationID: "plan-1-w-1",
		Stdin: strings.NewReader(objective), Stdout: &so, Stderr: &se, Status: &st,
	}
	r := capsuleRun{code: RunCapsule(ctx, cfg), stdout: so.String(), stderr: se.String(), session: sess}
	for line := range strings.SplitSeq(strings.TrimSpace(st.String()), "\n") {
		if line != "" {
			r.status = append(r.status, line)
		}
	}
	return r
}

// events returns the child session's trace events, with exit_status.
func (r capsuleRun) events(t *testing.T) []string {
	t.Helper()
	return traceEvents(t, filepath.Join(r.session, sessionfmt.TraceFile))
}

// TestRunCapsulePlan: a plan entrypoint runs under the capsule's own
// manifest, which needs no plan.submit, and answers with its report.
func TestRunCapsulePlan(t *testing.T) {
	manifest := `{"name": "local/w", "tools": {"builtin": ["notes", "read-file"]}, "entrypoint": {"plan": "plan.json"}}`
	plan := `{"id": "inner", "steps": [{"id": "n", "tool": "notes", "input": {"body": "noted"}}]}`
	r := runTestCapsule(t, t.Context(), manifest, "x", "plan.json", plan)
	if r.code != session.ExitCompleted {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var rep vm.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.PlanID != "inner" || !rep.Completed || len(rep.Steps) != 1 || rep.Steps[0].Output == nil || *rep.Steps[0].Output != "appended 6 bytes to notes.md" {
		t.Errorf("answer %s (%v)", r.stdout, err)
	}
	if diff := cmp.Diff([]string{`{"up":true}`, `{"outcome":"completed"}`}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "plan_start", "plan_step_start", "plan_step", "plan_end", "session_end:ok"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(r.session, sessionfmt.NotesFile)); string(b) != "noted\n" {
		t.Errorf("notes.md %q", b)
	}

	// A step its manifest does not grant: the plan is refused, and the
	// child session records that it failed.
	r = runTestCapsule(t, t.Context(), manifest, "x", "plan.json", `{"id": "inner", "steps": [{"id": "w", "tool": "write-file", "input": {"path": "x", "content": "y"}}]}`)
	if r.code != session.ExitRefused || len(r.status) != 2 || !strings.HasPrefix(r.status[1], `{"outcome":"failed","reason":"its entrypoint plan plan.json is refused: 1:47: tool \"write-file\" is not among the tools of `) {
		t.Errorf("refused plan: exit %d, status %+v", r.code, r.status)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:failed"}, r.events(t)); diff != "" {
		t.Errorf("refused plan's trace (-want +got):\n%s", diff)
	}
	if len(r.status) == 2 && !strings.Contains(r.status[1], `/local/w/capsule.json, which has \"notes\", \"read-file\"; add \"write-file\" to tools.builtin [unknown-tool]`) {
		t.Errorf("the refusal does not end with its fix, naming the manifest: %s", r.status[1])
	}
	// A built-in tool's input is held to its schema, as planc run holds it.
	r = runTestCapsule(t, t.Context(), manifest, "x", "plan.json", `{"id": "inner", "steps": [{"id": "n", "tool": "notes", "input": {"text": 3}}]}`)
	if r.code != session.ExitRefused || len(r.status) != 2 || !strings.Contains(r.status[1], "[tool-input]") {
		t.Errorf("a wrong input: exit %d, status %+v", r.code, r.status)
	}
}

// TestRunParentEnded: Run under a lifeline that has ended writes
// spawner_ended and no session_end.
func TestRunParentEnded(t *testing.T) {
	ended := make(chan struct{})
	close(ended)
	res, err := Run(t.Context(), Config{
		WorkDir: t.TempDir(), SpawnedBy: "p-1", DelegationID: "plan-1-x-1", ParentEnded: ended,
		Plan: checked(t, nil, `{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "hi"}}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	ev := traceEvents(t, filepath.Join(res.Session.Dir, sessionfmt.TraceFile))
	if ev[0] != "session_start" || ev[len(ev)-1] == "session_end" || !strings.Contains(strings.Join(ev, " "), "spawner_ended") {
		t.Errorf("trace %v", ev)
	}
	if s := res.Session.Info; *s.SpawnedBy != "p-1" || *s.DelegationID != "plan-1-x-1" {
		t.Errorf("session.json %+v", s)
	}
}
