package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
)

// TestTraceFIFO: a session directory from elsewhere whose trace.jsonl or
// kept output is a FIFO (steps cannot make one there: the session is
// read-only to them) makes planc trace say so and end, not wait for ever
// for a writer.
func TestTraceFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "in.txt", "hello\n", "plan.json", `{"id": "f", "steps": [
		{"id": "read", "tool": "read-file", "input": {"path": "in.txt"}}]}`)
	if r := planc(t, dir, "--quiet", "--session", "s", "plan.json"); r.code != 0 {
		t.Fatalf("planc run: exit %d\n%s", r.code, r.stderr)
	}
	sess := filepath.Join(dir, "s")
	out := filepath.Join(sess, "outputs", "plan-1", "read.1.txt")
	for _, f := range []string{out, filepath.Join(sess, "trace.jsonl")} {
		if err := os.Chmod(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(f, 0o644)
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"logs", "s", "read"}, {"html", "s", "-o", "page.html"}, {"steps", "s"}, {"report", "s"}} {
			// A hang guard only: planc answers at once.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			cmd := testkit.PlancCmd(t, dir, "trace", args...)
			cmd2 := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
			cmd2.Dir, cmd2.Env = cmd.Dir, cmd.Env
			so, se, code := testkit.RunCmd(t, cmd2)
			hung := ctx.Err() != nil
			cancel()
			if hung {
				t.Fatalf("planc trace %v with %s a FIFO: still waiting after 2 minutes", args, filepath.Base(f))
			}
			if strings.HasSuffix(f, "read.1.txt") && args[0] == "logs" && (code == 0 || !strings.Contains(se, "not a regular file")) {
				t.Errorf("planc trace logs with the output a FIFO: exit %d\n%s%s", code, so, se)
			}
			if strings.HasSuffix(f, "trace.jsonl") && !strings.Contains(se, "not a regular file") {
				t.Errorf("planc trace %v with trace.jsonl a FIFO: exit %d, no word of it\n%s%s", args, code, so, se)
			}
		}
	}
}
