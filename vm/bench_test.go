package vm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

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
