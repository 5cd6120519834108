package graph_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/graph"
)

// TestWriteSchedule: the dry run's text for a small plan: the tool lane
// makes the second tool step wait a tick, --max-parallel makes the later
// shell steps wait for a slot, and a condition's control characters are
// escaped. (cmd/planc's golden files hold the whole format.)
func TestWriteSchedule(t *testing.T) {
	p := lower(t,
		`{"id": "a", "tool": "notes", "input": {"body": "x"}}`,
		`{"id": "b", "tool": "notes", "input": {"body": "y"}, "retries": 2}`,
		`{"id": "s1", "shell": "true"}`,
		`{"id": "s3", "shell": "true"}`,
		`{"id": "s2", "shell": "true", "depends_on": ["a"], "if": "$a.output == '\u001b'", "on_error": "continue"}`)
	s, err := graph.Simulate(p, graph.Options{MaxParallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	graph.WriteSchedule(&b, p, s, 1)
	want := `dry run of plan "p": 5 steps in 3 ticks; nothing runs and no session is written
assumed: every condition holds and every step succeeds at its first attempt, in one tick; at most 1 shell or capsule step at once

tick 1
  "a"   tool "notes"
  "s1"  shell "true"
tick 2
  "b"   tool "notes"  retries 2; waits 1 tick for the tool lane
  "s3"  shell "true"  waits 1 tick for a --max-parallel slot
tick 3
  "s2"  shell "true"  after "a"; if $a.output == '\x1b'; on_error continue; waits 1 tick for a --max-parallel slot

tool lane: "a" → "b"
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("dry run (-want +got):\n%s", diff)
	}

	var empty strings.Builder
	graph.WriteSchedule(&empty, lower(t), &graph.Schedule{}, 0)
	if got := empty.String(); got != "dry run of plan \"p\": no steps, so it completes at once; nothing runs and no session is written\n" {
		t.Errorf("no steps: %q", got)
	}
}

// TestDryRunAndWrite: DryRun is Simulate then WriteSchedule; Write picks
// the renderer by its format's name and refuses another.
func TestDryRunAndWrite(t *testing.T) {
	p := lower(t, `{"id": "a", "tool": "notes", "input": {"body": "x"}}`, `{"id": "s", "shell": "true", "depends_on": ["a"]}`)
	s, err := graph.Simulate(p, graph.Options{MaxParallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want, got strings.Builder
	graph.WriteSchedule(&want, p, s, 2)
	if err := graph.DryRun(&got, p, 2); err != nil || got.String() != want.String() {
		t.Errorf("DryRun: %v\n%s\nwant\n%s", err, got.String(), want.String())
	}
	for format, write := range map[string]func(*strings.Builder) error{
		"dot":     func(b *strings.Builder) error { return graph.WriteDOT(b, p) },
		"mermaid": func(b *strings.Builder) error { return graph.WriteMermaid(b, p) },
	} {
		var want, got strings.Builder
		if err := write(&want); err != nil {
			t.Fatal(err)
		}
		if err := graph.Write(&got, p, format); err != nil || got.String() != want.String() {
			t.Errorf("Write(%s): %v\n%s", format, err, got.String())
		}
	}
	if err := graph.Write(&strings.Builder{}, p, "svg"); err == nil {
		t.Error("Write(svg): no error")
	}
}
