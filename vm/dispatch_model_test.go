package vm_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestPropertyDispatchModel runs seeded random plans whose steps refer to
// other steps (dependencies or not) in their input, objective and
// condition, against a host answering at once from real goroutines, and
// replays the run on a reference model: a plain scheduler that scans the
// steps in plan order, holds one tool lane and MaxParallel slots, and
// resolves references and conditions at the moment it dispatches a step
// (S9). The model is fed the order in which the VM saw the host's answers
// (its plan_step lines of dispatched attempts); from that alone it must
// produce the same trace and the same report.
func TestPropertyDispatchModel(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 50
	}
	unsettled, skipped := 0, 0
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 7))
		steps := refSteps(rng)
		prog := compile(t, steps...)
		salt := rng.Uint64()
		refusals := map[string]error{}
		for _, s := range prog.Steps {
			if rng.IntN(12) == 0 {
				refusals[s.ID] = errors.New("refused " + s.ID)
			}
		}
		h := &vmtest.Host{Refusals: refusals, Auto: func(_ context.Context, c vm.Call) (string, error) {
			if fails(salt, c.Index, c.Attempt) {
				return "", fmt.Errorf("%s attempt %d failed", c.Step.ID, c.Attempt)
			}
			return c.Step.ID + " out", nil
		}}
		opts := vm.Options{MaxParallel: rng.IntN(4)}
		rep, err := vm.Run(context.Background(), prog, h, opts)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		evs := h.Events()
		m := newModel(prog, opts.MaxParallel, salt, refusals)
		msg := m.replay(evs)
		if msg == "" {
			if d := diffStrings(trace(evs), m.trace); d != "" {
				msg = "trace differs from the model's:\n" + d
			} else if d := diffStrings(rowStrings(rows(rep)), rowStrings(m.report())); d != "" {
				msg = "report differs from the model's:\n" + d
			}
		}
		if msg != "" {
			t.Fatalf("seed %d, MaxParallel %d: %s\nplan:\n%s\ntrace:\n%s", seed, opts.MaxParallel, msg, strings.Join(steps, "\n"), strings.Join(trace(evs), "\n"))
		}
		for _, r := range rep.Steps {
			if r.Error != nil && strings.HasSuffix(*r.Error, "has not settled") {
				unsettled++
			}
			if r.Status == vm.StatusSkipped && r.Error == nil {
				skipped++
			}
		}
	}
	t.Logf("unsettled references: %d, false conditions: %d", unsettled, skipped)
	if unsettled == 0 || skipped == 0 {
		t.Errorf("the generator lost its reach: %d unsettled references, %d false conditions", unsettled, skipped)
	}
}

// refSteps returns up to 24 random steps: tool steps with a reference in
// their input, capsule steps with one as objective, shell steps; some with
// a condition; references to a dependency or to any other earlier step.
func refSteps(rng *rand.Rand) []string {
	n := rng.IntN(24)
	steps := make([]string, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, `{"id": "s%d"`, i)
		var deps []int
		for range rng.IntN(3) {
			if i > 0 {
				deps = append(deps, rng.IntN(i))
			}
		}
		ref := func() int {
			if len(deps) > 0 && rng.IntN(2) == 0 {
				return deps[rng.IntN(len(deps))]
			}
			return rng.IntN(i)
		}
		switch k := rng.IntN(3); {
		case k == 0 && i > 0:
			fmt.Fprintf(&b, `, "tool": "t", "input": {"v": "$s%d.output", "w": ["$s%d.status"]}`, ref(), ref())
		case k == 0:
			b.WriteString(`, "tool": "t"`)
		case k == 1:
			b.WriteString(`, "shell": "run it"`)
		case i > 0:
			fmt.Fprintf(&b, `, "capsule": "worker", "input": {"objective": "$s%d.output"}`, ref())
		default:
			b.WriteString(`, "capsule": "worker", "input": "task"`)
		}
		if len(deps) > 0 {
			fmt.Fprintf(&b, `, "depends_on": ["s%d"`, deps[0])
			for _, d := range deps[1:] {
				fmt.Fprintf(&b, `, "s%d"`, d)
			}
			b.WriteString("]")
		}
		if i > 0 && rng.IntN(2) == 0 {
			lit := []string{"success", "failed", "skipped"}[rng.IntN(3)]
			op := []string{"==", "!="}[rng.IntN(2)]
			r := ref()
			fmt.Fprintf(&b, `, "if": "$s%d.status %s '%s' || $s%d.output == 's%d out'"`, r, op, lit, ref(), r)
		}
		fmt.Fprintf(&b, `, "on_error": %q, "retries": %d}`, []string{"fail", "skip", "continue", "continue"}[rng.IntN(4)], rng.IntN(3))
		steps[i] = b.String()
	}
	return steps
}

// model is the reference scheduler.
type model struct {
	prog     *ir.Program
	maxPar   int
	salt     uint64
	refusals map[string]error

	settled  []bool
	running  []bool
	rows     []row // settled steps, by index
	order    []int
	attempt  []int
	toolBusy bool
	inSlots  int
	stopped  bool
	trace    []string
}

func newModel(prog *ir.Program, maxPar int, salt uint64, refusals map[string]error) *model {
	n := len(prog.Steps)
	return &model{prog: prog, maxPar: maxPar, salt: salt, refusals: refusals,
		settled: make([]bool, n), running: make([]bool, n), rows: make([]row, n), attempt: make([]int, n)}
}

// replay runs the model on the order of the host's answers in evs, and
// returns what was impossible, or "".
func (m *model) replay(evs []vm.Event) string {
	m.trace = append(m.trace, "plan_start")
	m.advance()
	for _, e := range evs {
		if e.Kind != vm.PlanStep || e.Attempt == 0 {
			continue
		}
		i := m.index(e.StepID)
		if i < 0 || !m.running[i] || m.attempt[i] != e.Attempt {
			return fmt.Sprintf("the VM ended %s attempt %d, which the model has not dispatched", e.StepID, e.Attempt)
		}
		m.complete(i)
		m.advance()
	}
	for i := range m.running {
		if m.running[i] {
			return fmt.Sprintf("the model still runs %s", m.prog.Steps[i].ID)
		}
	}
	outcome := "completed"
	if m.stopped {
		outcome = "failed"
	}
	m.trace = append(m.trace, "end "+outcome)
	return ""
}

func (m *model) index(id string) int {
	for i := range m.prog.Steps {
		if m.prog.Steps[i].ID == id {
			return i
		}
	}
	return -1
}

// advance dispatches, in plan order, every step whose dependencies have
// settled and whose lane or slot is free, until none is left.
func (m *model) advance() {
	for !m.stopped {
		next := -1
		for i := range m.prog.Steps {
			if m.settled[i] || m.running[i] || !m.depsSettled(i) {
				continue
			}
			if m.prog.Steps[i].Kind == ir.KindTool {
				if m.toolBusy {
					continue
				}
			} else if m.maxPar > 0 && m.inSlots >= m.maxPar {
				continue
			}
			next = i
			break
		}
		if next < 0 {
			return
		}
		m.dispatch(next)
	}
}

func (m *model) depsSettled(i int) bool {
	for _, d := range m.prog.Steps[i].Deps {
		if !m.settled[d] {
			return false
		}
	}
	return true
}

// dispatch resolves step i's references and condition now (S9, S12), asks
// the refusal check, and starts attempt 1.
func (m *model) dispatch(i int) {
	s := &m.prog.Steps[i]
	var vals []ir.Value
	for _, ref := range s.Refs {
		if !m.settled[ref.Step] {
			id := m.prog.Steps[ref.Step].ID
			m.fail(i, 0, fmt.Sprintf("reference $%s.%s: step %q has not settled", id, ref.Field, id))
			return
		}
		r := m.rows[ref.Step]
		if ref.Field == ir.FieldStatus {
			vals = append(vals, ir.Value{Text: r.Status})
		} else {
			vals = append(vals, ir.Value{Text: r.Output, Null: r.Output == ""})
		}
	}
	if s.Cond != nil && !s.Cond.Eval(vals) {
		m.settle(i, 0, "skipped", "", "")
		return
	}
	if err := m.refusals[s.ID]; err != nil && s.Kind != ir.KindCapsule {
		m.fail(i, 0, err.Error())
		return
	}
	m.start(i, 1)
}

func (m *model) start(i, attempt int) {
	m.running[i], m.attempt[i] = true, attempt
	if m.prog.Steps[i].Kind == ir.KindTool {
		m.toolBusy = true
	} else {
		m.inSlots++
	}
	m.trace = append(m.trace, fmt.Sprintf("start %s %d", m.prog.Steps[i].ID, attempt))
}

// complete ends step i's running attempt as the host answers it.
func (m *model) complete(i int) {
	s := &m.prog.Steps[i]
	m.running[i] = false
	if s.Kind == ir.KindTool {
		m.toolBusy = false
	} else {
		m.inSlots--
	}
	a := m.attempt[i]
	switch {
	case !fails(m.salt, i, a):
		m.settle(i, a, "success", s.ID+" out", "")
	case a <= s.Retries && !m.stopped:
		m.trace = append(m.trace, fmt.Sprintf("step %s %d failed", s.ID, a))
		m.start(i, a+1)
	default:
		m.fail(i, a, fmt.Sprintf("%s attempt %d failed", s.ID, a))
	}
}

// fail settles step i's final failure under its on_error (S18).
func (m *model) fail(i, attempt int, msg string) {
	switch m.prog.Steps[i].OnError {
	case ir.OnErrorSkip:
		m.settle(i, attempt, "skipped", "", msg)
	case ir.OnErrorContinue:
		m.settle(i, attempt, "failed", "", msg)
	default:
		m.stopped = true
		m.settle(i, attempt, "failed", "", msg)
	}
}

func (m *model) settle(i, attempt int, status, out, msg string) {
	m.settled[i] = true
	m.rows[i] = row{ID: m.prog.Steps[i].ID, Status: status, Output: out, Error: msg}
	m.order = append(m.order, i)
	m.trace = append(m.trace, fmt.Sprintf("step %s %d %s", m.prog.Steps[i].ID, attempt, status))
}

func (m *model) report() []row {
	var out []row
	for _, i := range m.order {
		out = append(out, m.rows[i])
	}
	return out
}

func rowStrings(rs []row) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%+v", r))
	}
	return out
}

// diffStrings returns "" when want and got are equal, else both, side by
// side from their first difference.
func diffStrings(got, want []string) string {
	for k := 0; k < max(len(got), len(want)); k++ {
		var g, w string
		if k < len(got) {
			g = got[k]
		}
		if k < len(want) {
			w = want[k]
		}
		if g != w {
			return fmt.Sprintf("at %d: VM %q, model %q\nVM:    %v\nmodel: %v", k, g, w, got[k:], want[k:])
		}
	}
	return ""
}
