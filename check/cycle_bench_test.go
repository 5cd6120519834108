package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// genCycle returns a plan of n steps that is one dependency cycle: step i
// depends on step i+1, the last on the first.
func genCycle(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"id": "cycle", "steps": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "tool": "notes", "depends_on": ["s%d"], "input": {"body": "x"}}`, i, (i+1)%n)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// cycleDiags parses and checks genCycle(n).
func cycleDiags(tb testing.TB, n int) []check.Diagnostic {
	tb.Helper()
	plan, diags := parser.ParsePlan(genCycle(n), parser.DefaultLimits())
	if len(diags) != 0 {
		tb.Fatal(diags[0])
	}
	return check.Check(plan, &check.Capabilities{Tools: []string{"notes"}})
}

// TestLongCycleLinear: a plan that is one cycle of n steps gets one
// diagnostic per step, each naming at most a dozen steps and the count of
// the others, so that the text of them all grows linearly with n.
func TestLongCycleLinear(t *testing.T) {
	for _, n := range []int{12, 13, 1000, 100_000} {
		diags := cycleDiags(t, n)
		if len(diags) != n {
			t.Fatalf("%d steps: %d diagnostics", n, len(diags))
		}
		size := 0
		for _, d := range diags {
			if d.Code != "dependency-cycle" || d.Message != diags[0].Message {
				t.Fatalf("%d steps: %+v", n, d)
			}
			size += len(d.Message)
		}
		if size > 250*n {
			t.Errorf("%d steps: %d bytes of messages, over 250 a step", n, size)
		}
		msg := diags[0].Message
		switch {
		case n <= 12 && !strings.Contains(msg, fmt.Sprintf("s%d → s0 (", n-1)):
			t.Errorf("%d steps: %s", n, msg)
		case n > 12 && !strings.Contains(msg, fmt.Sprintf("s0 → s1 → s2 → s3 → s4 → s5 → s6 → s7 → s8 → s9 → s10 → … %s more … → s%d → s0 (", commas(n-12), n-1)):
			t.Errorf("%d steps: %s", n, msg)
		}
	}
}

// commas writes n with a comma between groups of three digits.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// BenchmarkCycle measures parse+check of a plan that is one dependency
// cycle of 10,000 and of 100,000 steps.
func BenchmarkCycle(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		src := genCycle(n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				plan, _ := parser.ParsePlan(src, parser.DefaultLimits())
				if len(check.Check(plan, &check.Capabilities{Tools: []string{"notes"}})) != n {
					b.Fatal("not one diagnostic a step")
				}
			}
		})
	}
}
