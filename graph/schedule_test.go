package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/graph"
	"github.com/planc/planc/ir"
)

// lower parses and lowers a plan with id "p" whose steps are the given
// JSON objects.
func lower(t testing.TB, steps ...string) *ir.Program {
	t.Helper()
	return lowerSrc(t, `{"id": "p", "steps": [`+strings.Join(steps, ",\n")+`]}`)
}

func lowerSrc(t testing.TB, src string) *ir.Program {
	t.Helper()
	plan, ds := check.Load([]byte(src), nil)
	if plan == nil {
		t.Fatalf("refused: %v\n%s", ds, src)
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		t.Fatalf("lower: %v\n%s", err, src)
	}
	return prog
}

func ids(p *ir.Program, idx []int32) []string {
	out := make([]string, len(idx))
	for i, x := range idx {
		out[i] = p.Steps[x].ID
	}
	return out
}

func ticks(p *ir.Program, s *graph.Schedule) [][]string {
	out := make([][]string, len(s.Ticks))
	for i, tk := range s.Ticks {
		out[i] = ids(p, tk)
	}
	return out
}

func TestSimulate(t *testing.T) {
	tests := []struct {
		name   string
		steps  []string
		opts   graph.Options
		ticks  [][]string
		lane   []string
		tickOf map[string]int
	}{
		{
			name:  "empty",
			ticks: [][]string{},
		},
		{
			// S17: t2 became ready after t3 was queued, but it is earlier
			// in plan order, so it goes first.
			name: "plan order among ready tools",
			steps: []string{
				`{"id": "t1", "tool": "notes"}`,
				`{"id": "sh", "shell": "echo"}`,
				`{"id": "t2", "tool": "notes", "depends_on": ["sh"]}`,
				`{"id": "t3", "tool": "notes"}`,
			},
			ticks: [][]string{{"t1", "sh"}, {"t2"}, {"t3"}},
			lane:  []string{"t1", "t2", "t3"},
		},
		{
			name: "shells and capsules start together, tools one at a time",
			steps: []string{
				`{"id": "a", "tool": "notes"}`,
				`{"id": "b", "tool": "notes"}`,
				`{"id": "c", "shell": "echo"}`,
				`{"id": "d", "capsule": "worker", "input": "x"}`,
				`{"id": "e", "shell": "echo", "depends_on": ["a", "c"]}`,
			},
			ticks:  [][]string{{"a", "c", "d"}, {"b", "e"}},
			lane:   []string{"a", "b"},
			tickOf: map[string]int{"a": 0, "b": 1, "c": 0, "d": 0, "e": 1},
		},
		{
			name: "max parallel bounds shells, not the lane",
			steps: []string{
				`{"id": "s1", "shell": "echo"}`,
				`{"id": "s2", "shell": "echo"}`,
				`{"id": "s3", "shell": "echo"}`,
				`{"id": "t", "tool": "notes"}`,
			},
			opts:  graph.Options{MaxParallel: 2},
			ticks: [][]string{{"s1", "s2", "t"}, {"s3"}},
			lane:  []string{"t"},
		},
		{
			// Conditions are assumed to hold: the conditional step runs.
			name: "seed refresh-fixtures",
			steps: []string{
				`{"id": "list", "tool": "repo-files", "input": {"glob": "tests/**"}}`,
				`{"id": "check", "shell": "bash -c 'go test ./...'", "depends_on": ["list"]}`,
				`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'failed'", "input": {"body": "$check.output"}}`,
			},
			ticks: [][]string{{"list"}, {"check"}, {"note"}},
			lane:  []string{"list", "note"},
		},
		{
			name: "diamond",
			steps: []string{
				`{"id": "root", "shell": "echo"}`,
				`{"id": "left", "tool": "notes", "depends_on": ["root"]}`,
				`{"id": "right", "tool": "notes", "depends_on": ["root"]}`,
				`{"id": "join", "capsule": "worker", "input": "x", "depends_on": ["right", "left"]}`,
			},
			ticks: [][]string{{"root"}, {"left"}, {"right"}, {"join"}},
			lane:  []string{"left", "right"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := lower(t, tt.steps...)
			s, err := graph.Simulate(p, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.ticks, ticks(p, s)); d != "" {
				t.Errorf("ticks (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.lane, ids(p, s.ToolLane), cmpEmpty); d != "" {
				t.Errorf("tool lane (-want +got):\n%s", d)
			}
			for id, want := range tt.tickOf {
				for i := range p.Steps {
					if p.Steps[i].ID == id && s.Tick[i] != want {
						t.Errorf("Tick[%s] = %d, want %d", id, s.Tick[i], want)
					}
				}
			}
		})
	}
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })

func TestSimulateInvalidProgram(t *testing.T) {
	p := &ir.Program{ID: "p", Steps: []ir.Step{{ID: "a", Kind: ir.KindTool, Deps: []int32{0}}}}
	if _, err := graph.Simulate(p, graph.Options{}); err == nil {
		t.Fatal("want an error for a program that depends on itself")
	}
	if _, err := graph.Simulate(nil, graph.Options{}); err == nil {
		t.Fatal("want an error for a nil program")
	}
}

// TestSimulateLarge: a plan at the step limit (S5) is simulated quickly,
// also when its steps become ready in descending plan order: each step of
// the second half waits for its mirror in the first.
func TestSimulateLarge(t *testing.T) {
	const n = 100000
	kinds := []string{`"tool": "notes"`, `"shell": "echo"`, `"capsule": "w", "input": "x"`}
	steps := make([]string, n)
	for i := range n {
		dep := ""
		if i >= n/2 {
			dep = fmt.Sprintf(`, "depends_on": ["s%d"]`, n-1-i)
		}
		steps[i] = fmt.Sprintf(`{"id": "s%d", %s%s}`, i, kinds[i%3], dep)
	}
	p := lowerSrc(t, `{"id": "big", "steps": [`+strings.Join(steps, ",")+`]}`)
	s, err := graph.Simulate(p, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	started := 0
	for _, tk := range s.Ticks {
		started += len(tk)
	}
	if started != n || len(s.ToolLane) != (n+2)/3 {
		t.Errorf("%d steps started, %d in the lane", started, len(s.ToolLane))
	}
}
