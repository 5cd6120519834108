package check_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// genPlan returns a plan of n steps in which each step (from the third on)
// has two dependencies, an if over both, and a reference in its input: the
// issue's benchmark shape. Dependencies reach back up to 50 steps, so the
// graph is not a simple chain.
func genPlan(n int) []byte {
	var b strings.Builder
	b.Grow(n * 200)
	b.WriteString(`{"id": "generated", "steps": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i < 2 {
			fmt.Fprintf(&b, `{"id": "s%d", "tool": "notes", "input": {"body": "start %d"}}`, i, i)
			continue
		}
		a, c := i-1, i-2-(i*7)%min(i-1, 49)
		fmt.Fprintf(&b, `{"id":"s%d","tool":"notes","depends_on":["s%d","s%d"],"if":"$s%d.status == 'success' || $s%d.status != 'skipped'","input":{"body":"$s%d.output"}}`,
			i, a, c, a, c, c)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

func TestGeneratedPlanIsClean(t *testing.T) {
	src := genPlan(500)
	plan, diags := parser.ParsePlan(src, parser.DefaultLimits())
	diags = append(diags, check.Check(plan, &check.Capabilities{Tools: []string{"notes"}})...)
	if len(diags) != 0 {
		t.Fatalf("generated plan has diagnostics: %v", diags[0])
	}
}

// BenchmarkCheck measures parse+check of generated plans beside
// encoding/json.Unmarshal of the same bytes into any (the peer).
func BenchmarkCheck(b *testing.B) {
	caps := &check.Capabilities{Tools: []string{"notes"}}
	for _, n := range []int{1_000, 10_000, 100_000} {
		src := genPlan(n)
		// One untimed run before each loop puts the collector's heap goal
		// in its steady state, as bench/'s BenchmarkParse does: otherwise
		// the 100k case, run only a few times, carries the heap's growth
		// from the testing package's runtime.GC in its average.
		b.Run(fmt.Sprintf("%dk/planc-check", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			parseCheck := func() {
				plan, diags := parser.ParsePlan(src, parser.DefaultLimits())
				diags = append(diags, check.Check(plan, caps)...)
				if len(diags) != 0 {
					b.Fatal(diags[0])
				}
			}
			parseCheck()
			b.ReportAllocs()
			for b.Loop() {
				parseCheck()
			}
		})
		b.Run(fmt.Sprintf("%dk/encoding-json", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			unmarshal := func() {
				var v any
				if err := json.Unmarshal(src, &v); err != nil {
					b.Fatal(err)
				}
			}
			unmarshal()
			b.ReportAllocs()
			for b.Loop() {
				unmarshal()
			}
		})
	}
}
