package bench

import (
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// BenchmarkParseStages splits BenchmarkParse/planc-check into its two
// stages, parser.ParsePlan alone and check.Check alone on a parsed plan, to
// see which one grows faster than the plan. run.sh does not run it (the
// performance page reports the whole); run it by hand:
//
//	go test -run '^$' -bench BenchmarkParseStages -benchmem -count 6
func BenchmarkParseStages(b *testing.B) {
	for _, sz := range Sizes {
		src := GenPlan(sz.Steps)
		b.Run(sz.Name+"/parse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if plan, diags := parser.ParsePlan(src, parser.DefaultLimits()); plan == nil || len(diags) != 0 {
					b.Fatal("generated plan does not parse")
				}
			}
			perStep(b, sz.Steps)
		})
		b.Run(sz.Name+"/check", func(b *testing.B) {
			plan, _ := parser.ParsePlan(src, parser.DefaultLimits())
			caps := Caps()
			b.ReportAllocs()
			for b.Loop() {
				if diags := check.Check(plan, caps); len(diags) != 0 {
					b.Fatal(diags[0])
				}
			}
			perStep(b, sz.Steps)
		})
	}
}
