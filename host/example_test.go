package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/sessionfmt"
)

// ExampleRun runs a plan the way planc run does, from Go: the front end
// (check.Load, with the capabilities of the embedded default manifest), a
// session directory with the plan file, trace.jsonl and notes.md, the
// built-in tools, and the report.
func ExampleRun() {
	work, err := os.MkdirTemp("", "planc-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(work)
	src := []byte(`{"id": "note", "steps": [
  {"id": "write", "tool": "write-file", "input": {"path": "hello.txt", "content": "hi\n"}},
  {"id": "read", "tool": "read-file", "depends_on": ["write"], "input": {"path": "hello.txt"}},
  {"id": "note", "tool": "notes", "depends_on": ["read"], "input": {"body": "$read.output"}}
]}`)
	env := capenv.Default() // built-in tools, no shell
	plan, diags := env.Load(src)
	if plan == nil {
		fmt.Println("refused:", diags) // planc run prints them and exits 2
		return
	}
	res, err := host.Run(context.Background(), host.Config{
		Plan:       plan,
		Env:        env,
		WorkDir:    work,
		SessionDir: filepath.Join(work, "session"),
	})
	var refused *host.RefusedError
	switch {
	case errors.As(err, &refused):
		fmt.Println("refused:", refused) // nothing ran; planc run exits 2
		return
	case err != nil:
		panic(err) // the runtime itself failed
	}
	fmt.Println(res.Report.Summary)
	fmt.Println("exit status:", res.Status, "plan file:", res.Plan.Rel)
	for _, s := range res.Report.Steps {
		fmt.Printf("%s %s %q\n", s.StepID, s.Status, *s.Output)
	}
	notes, _ := os.ReadFile(filepath.Join(res.Session.Dir, sessionfmt.NotesFile))
	fmt.Printf("notes.md: %q\n", notes)
	_, err = os.Stat(filepath.Join(res.Session.Dir, sessionfmt.TraceFile))
	fmt.Println("trace written:", err == nil)
	// Output:
	// Plan 'note': 3 steps, 3 succeeded, 0 failed, 0 skipped
	// exit status: 0 plan file: plans/plan-1.json
	// write success "wrote 3 bytes to hello.txt"
	// read success "hi\n"
	// note success "appended 3 bytes to notes.md"
	// notes.md: "hi\n"
	// trace written: true
}
