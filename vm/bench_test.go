package vm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// dagPlan returns the JSON steps of an n-step random DAG (seeded): each
// step but the first depends on one to three of the 64 steps before it; a quarter are tool
// steps with a static input, an eighth have a condition on a dependency's
// status, the rest are shell steps.
func dagPlan(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	steps := make([]string, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, `{"id": "s%d"`, i)
		if i%4 == 0 {
			b.WriteString(`, "tool": "t", "input": {"k": "v"}`)
		} else {
			b.WriteString(`, "shell": "true"`)
		}
		var deps []int
		if i > 0 {
			for range 1 + rng.IntN(3) {
				deps = append(deps, i-1-rng.IntN(min(i, 64)))
			}
		}
		if len(deps) > 0 {
			b.WriteString(`, "depends_on": [`)
			for k, d := range deps {
				if k > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, `"s%d"`, d)
			}
			b.WriteString("]")
			if i%8 == 1 {
				fmt.Fprintf(&b, `, "if": "$s%d.status == 'success'"`, deps[0])
			}
		}
		b.WriteString("}")
		steps[i] = b.String()
	}
	return steps
}

// BenchmarkRun runs n-step DAGs against the no-op host; the per-step cost
// is ns/op and allocs/op divided by n (reported as ns/step, allocs/step).
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		prog := compile(b, dagPlan(n, 1)...)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) { benchRun(b, prog) })
	}
}

func benchRun(b *testing.B, prog *ir.Program) {
	ctx := context.Background()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		rep, err := vm.Run(ctx, prog, vm.NopHost{}, vm.Options{})
		if err != nil || !rep.Completed {
			b.Fatalf("run: %v %s", err, rep.Summary)
		}
	}
	runtime.ReadMemStats(&after)
	perStep := float64(b.N) * float64(len(prog.Steps))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perStep, "ns/step")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perStep, "allocs/step")
}

// lastHost is the no-op host, timing the dispatch of one step: the time
// from start until that step is dispatched.
type lastHost struct {
	vm.NopHost
	last  int
	start time.Time
	took  time.Duration
}

func (h *lastHost) RunShell(_ context.Context, c vm.Call) (string, error) {
	if c.Index == h.last {
		h.took = time.Since(h.start)
	}
	return "", nil
}

// BenchmarkRedrive is issue 14's figure: a 10,000-step plan whose last
// step failed, redriven (every other step reused, S26), beside a first
// run of the same plan, both with the no-op host; ns-to-last is the time
// from Run's start to the dispatch of the last step.
func BenchmarkRedrive(b *testing.B) {
	const n = 10_000
	prog := compile(b, dagPlan(n, 1)...)
	if prog.Steps[n-1].Kind != ir.KindShell {
		b.Fatal("the last step is not a shell step")
	}
	prior := make([]vm.Prior, n)
	for i := range prior {
		prior[i] = vm.Prior{Status: vm.StatusSuccess, Output: "out", Attempt: 1}
	}
	prior[n-1] = vm.Prior{Status: vm.StatusFailed, Error: "exit status 1", Attempt: 1}
	for _, bc := range []struct {
		name string
		opts vm.Options
	}{{"first-run", vm.Options{}}, {"redrive", vm.Options{Redrive: 1, Prior: prior}}} {
		b.Run(fmt.Sprintf("steps=%d/%s", n, bc.name), func(b *testing.B) {
			b.ReportAllocs()
			var total time.Duration
			for b.Loop() {
				h := &lastHost{last: n - 1, start: time.Now()}
				rep, err := vm.Run(context.Background(), prog, h, bc.opts)
				if err != nil || !rep.Completed || h.took == 0 {
					b.Fatalf("run: %v %s", err, rep.Summary)
				}
				total += h.took
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns-to-last")
		})
	}
}
