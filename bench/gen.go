// Package bench measures planc beside the engines a user would pick instead:
// condition evaluation against github.com/expr-lang/expr and cel-go, parse +
// check against encoding/json, and the VM's scheduling overhead on generated
// DAGs. It is a module of its own so the main module never depends on the
// peers. run.sh runs the benchmarks and rewrites docs/performance.md; see
// that file for the figures.
package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/planc/planc/check"
)

// Sizes are the plan sizes of BenchmarkParse and BenchmarkSchedule: the
// name used in the benchmark (and by run.sh) and the number of steps.
var Sizes = []struct {
	Name  string
	Steps int
}{
	{"1k", 1_000},
	{"10k", 10_000},
	{"100k", 100_000},
}

// Caps are the capabilities the generated plans are checked with: the
// capability rules (unknown tool, shell not allowed) run, and pass.
func Caps() *check.Capabilities {
	return &check.Capabilities{Tools: []string{"notes"}, ShellAllow: []string{"true"}}
}

// GenPlan returns the JSON text of an n-step plan shaped like a real one,
// deterministic for a given n. Step i (i ≥ 2), by i mod 4:
//
//	0, 2: a tool step on s(i-1) and an earlier step c, with an if over both
//	      ($s(i-1).status == 'success' || $c.output > 'm') and $c.output in
//	      its input;
//	1:    the same without the if;
//	3:    a shell step ("true") on one earlier step.
//
// The earlier steps reach back up to 64 steps (seeded), so the graph is a
// DAG, not a chain. Under a host whose calls all succeed every condition
// holds, so every step is dispatched. Steps are compact (at most ~150 bytes
// with six-digit ids) so 100k steps stay well under the 16 MiB limit (S5).
func GenPlan(n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	back := func(i int) int { return i - 1 - rng.IntN(min(i, 64)) } // in [i-64, i-1]
	var b strings.Builder
	b.Grow(n * 120)
	b.WriteString(`{"id":"generated","steps":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch {
		case i == 0:
			b.WriteString(`{"id":"s0","tool":"notes","input":{"body":"start"}}`)
		case i%4 == 3:
			fmt.Fprintf(&b, `{"id":"s%d","shell":"true","depends_on":["s%d"]}`, i, back(i))
		case i == 1:
			b.WriteString(`{"id":"s1","tool":"notes","depends_on":["s0"],"input":{"body":"$s0.output"}}`)
		default:
			a, c := i-1, back(i-1) // c in [i-65, i-2]: never a
			fmt.Fprintf(&b, `{"id":"s%d","tool":"notes","depends_on":["s%d","s%d"]`, i, a, c)
			if i%2 == 0 {
				fmt.Fprintf(&b, `,"if":"$s%d.status == 'success' || $s%d.output > 'm'"`, a, c)
			}
			fmt.Fprintf(&b, `,"input":{"body":"$s%d.output"}}`, c)
		}
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}
