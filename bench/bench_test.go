package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"testing"

	"cel.dev/cel-go/cel"
	"github.com/expr-lang/expr"
	exprvm "github.com/expr-lang/expr/vm"

	"github.com/planc/planc/check"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// condCase is one condition of BenchmarkCond, written in planc's syntax
// over steps a, b, c and d, with the values its references hold. The values
// take the longest path through the condition (no early exit on the first
// term).
type condCase struct {
	name string
	cond string
	vals map[string]string // "a_status" → "failed"
	want bool
}

var condCases = []condCase{
	{"cmp", `$a.status == 'failed'`,
		map[string]string{"a_status": "failed"}, true},
	{"or2", `$a.status == 'failed' || $b.status == 'failed'`,
		map[string]string{"a_status": "success", "b_status": "failed"}, true},
	{"mix4", `$a.status == 'success' && $b.output != '' || $c.status == 'failed' && $d.output > 'm'`,
		map[string]string{"a_status": "skipped", "b_output": "out", "c_status": "failed", "d_output": "z"}, true},
}

// refRE matches a planc reference; peerSource rewrites $a.status as the
// identifier a_status. The rest of the syntax (== != > || && and quoted
// literals) is the same in expr and CEL.
var refRE = regexp.MustCompile(`\$([a-z]+)\.(status|output)`)

func peerSource(cond string) string { return refRE.ReplaceAllString(cond, "${1}_${2}") }

// exprEnv is expr's environment: a typed struct, expr's fastest binding,
// so the checker knows every name is a string.
type exprEnv struct {
	AStatus string `expr:"a_status"`
	AOutput string `expr:"a_output"`
	BStatus string `expr:"b_status"`
	BOutput string `expr:"b_output"`
	CStatus string `expr:"c_status"`
	COutput string `expr:"c_output"`
	DStatus string `expr:"d_status"`
	DOutput string `expr:"d_output"`
}

func newExprEnv(v map[string]string) exprEnv {
	return exprEnv{v["a_status"], v["a_output"], v["b_status"], v["b_output"],
		v["c_status"], v["c_output"], v["d_status"], v["d_output"]}
}

// plancCond lowers a plan whose step x has the condition over steps a, b, c,
// d, and returns x's compiled condition with its slot values, in slot
// order: what the VM passes to Cond.Eval when x becomes ready.
func plancCond(tb testing.TB, cond string, v map[string]string) (*ir.Cond, []ir.Value) {
	tb.Helper()
	// The upstream steps go on when they fail, so that a condition on their
	// failure can be true (else the checker warns never-runs, S32).
	src := fmt.Sprintf(`{"id":"p","steps":[{"id":"a","tool":"notes","on_error":"continue"},{"id":"b","tool":"notes","on_error":"continue"},
{"id":"c","tool":"notes","on_error":"continue"},{"id":"d","tool":"notes","on_error":"continue"},
{"id":"x","tool":"notes","depends_on":["a","b","c","d"],"if":%q}]}`, cond)
	plan, diags := check.Load([]byte(src), Caps())
	if len(diags) > 0 {
		tb.Fatalf("%s: %v", cond, diags[0])
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		tb.Fatal(err)
	}
	s := &prog.Steps[4]
	vals := make([]ir.Value, len(s.Refs))
	for k, r := range s.Refs {
		t := v[prog.Steps[r.Step].ID+"_"+r.Field.String()]
		vals[k] = ir.Value{Text: t, Null: t == "" && r.Field == ir.FieldOutput}
	}
	return s.Cond, vals
}

func exprProgram(tb testing.TB, cond string) *exprvm.Program {
	tb.Helper()
	prog, err := expr.Compile(peerSource(cond), expr.Env(exprEnv{}), expr.AsBool())
	if err != nil {
		tb.Fatal(err)
	}
	return prog
}

// celProgram plans the condition with every reference declared a string;
// the activation is built once, as planc's slot values are.
func celProgram(tb testing.TB, cond string, v map[string]string) (cel.Program, cel.Activation) {
	tb.Helper()
	var opts []cel.EnvOption
	for _, s := range []string{"a", "b", "c", "d"} {
		for _, f := range []string{"status", "output"} {
			opts = append(opts, cel.Variable(s+"_"+f, cel.StringType))
		}
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	ast, iss := env.Compile(peerSource(cond))
	if iss.Err() != nil {
		tb.Fatal(iss.Err())
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		tb.Fatal(err)
	}
	bind := map[string]any{}
	for _, s := range []string{"a", "b", "c", "d"} {
		for _, f := range []string{"status", "output"} {
			bind[s+"_"+f] = v[s+"_"+f]
		}
	}
	act, err := cel.NewActivation(bind)
	if err != nil {
		tb.Fatal(err)
	}
	return prg, act
}

// TestCondAgree: the three engines give the same answer on every case, on
// its reference values and with each value emptied in turn.
func TestCondAgree(t *testing.T) {
	for _, cc := range condCases {
		variants := []map[string]string{cc.vals}
		for k := range cc.vals {
			v := map[string]string{}
			for k2, x := range cc.vals {
				v[k2] = x
			}
			v[k] = ""
			variants = append(variants, v)
		}
		ep := exprProgram(t, cc.cond)
		for i, v := range variants {
			c, vals := plancCond(t, cc.cond, v)
			p := c.Eval(vals)
			e, err := expr.Run(ep, newExprEnv(v))
			if err != nil {
				t.Fatal(err)
			}
			prg, act := celProgram(t, cc.cond, v)
			out, _, err := prg.Eval(act)
			if err != nil {
				t.Fatal(err)
			}
			if p != e.(bool) || p != out.Value().(bool) {
				t.Errorf("%s %v: planc %v, expr %v, cel %v", cc.name, v, p, e, out.Value())
			}
			if i == 0 && p != cc.want {
				t.Errorf("%s: planc %v on the reference values, want %v", cc.name, p, cc.want)
			}
		}
	}
}

// BenchmarkCond evaluates each condition, compiled once, over fixed values:
// planc's Cond.Eval, expr's VM (reused, as expr recommends for hot loops)
// and cel-go's planned program over a prepared activation.
func BenchmarkCond(b *testing.B) {
	for _, cc := range condCases {
		b.Run(cc.name+"/planc", func(b *testing.B) {
			c, vals := plancCond(b, cc.cond, cc.vals)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if c.Eval(vals) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("condition never true")
			}
		})
		b.Run(cc.name+"/expr", func(b *testing.B) {
			prog := exprProgram(b, cc.cond)
			env := newExprEnv(cc.vals)
			var m exprvm.VM
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				out, err := m.Run(prog, env)
				if err != nil {
					b.Fatal(err)
				}
				if out.(bool) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("condition never true")
			}
		})
		b.Run(cc.name+"/cel", func(b *testing.B) {
			prg, act := celProgram(b, cc.cond, cc.vals)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				out, _, err := prg.Eval(act)
				if err != nil {
					b.Fatal(err)
				}
				if out.Value().(bool) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("condition never true")
			}
		})
	}
}

// TestGenPlan: the generated plans are clean under check with the
// capabilities on, and 100k steps fit the 16 MiB limit.
func TestGenPlan(t *testing.T) {
	for _, sz := range Sizes {
		src := GenPlan(sz.Steps)
		if lim := parser.DefaultLimits().MaxBytes; len(src) > lim {
			t.Fatalf("%s: %d bytes, over %d", sz.Name, len(src), lim)
		}
		plan, diags := check.Load(src, Caps())
		if len(diags) > 0 {
			t.Fatalf("%s: %d diagnostics, first %v", sz.Name, len(diags), diags[0])
		}
		if len(plan.AST().Steps) != sz.Steps {
			t.Fatalf("%s: %d steps", sz.Name, len(plan.AST().Steps))
		}
		var v any
		if err := json.Unmarshal(src, &v); err != nil {
			t.Fatal(err)
		}
		if testing.Short() {
			break
		}
	}
}

// BenchmarkParse: parser.ParsePlan + check.Check (capabilities on) beside
// encoding/json.Unmarshal into any, over the same bytes.
func BenchmarkParse(b *testing.B) {
	for _, sz := range Sizes {
		src := GenPlan(sz.Steps)
		plancCheck := func(b *testing.B) {
			plan, diags := parser.ParsePlan(src, parser.DefaultLimits())
			diags = append(diags, check.Check(plan, Caps())...)
			if len(diags) != 0 {
				b.Fatal(diags[0])
			}
		}
		unmarshal := func(b *testing.B) {
			var v any
			if err := json.Unmarshal(src, &v); err != nil {
				b.Fatal(err)
			}
		}
		// Each benchmark runs one untimed iteration first (steadyLoop): the
		// timed iterations then see the collector's heap goal in its steady
		// state at every size, so 10k (dozens of iterations a second) and
		// 100k (a handful) are measured alike.
		b.Run(sz.Name+"/planc-check", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			steadyLoop(b, plancCheck)
			perStep(b, sz.Steps)
		})
		b.Run(sz.Name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			steadyLoop(b, unmarshal)
			perStep(b, sz.Steps)
		})
	}
}

// steadyLoop runs fn once untimed, then as the benchmark's loop. The first
// run after the testing package's runtime.GC starts from a small heap goal,
// so the collector runs several extra cycles while the heap grows to the
// size of the result; with -benchtime 1s a 100k-step parse runs only three
// or four times, and that one ramp added about a third to its average
// (bench/analysis.md), while at 10k it is spread over dozens of
// iterations. One untimed run makes every size pay the steady-state cost.
func steadyLoop(b *testing.B, fn func(*testing.B)) {
	fn(b)
	b.ReportAllocs()
	for b.Loop() {
		fn(b)
	}
}

// perStep reports the time per step of a benchmark over n-step plans.
func perStep(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(n)), "ns/step")
}

// lowerGen parses, checks and lowers an n-step generated plan.
func lowerGen(tb testing.TB, n int) *ir.Program {
	tb.Helper()
	plan, diags := check.Load(GenPlan(n), Caps())
	if len(diags) != 0 {
		tb.Fatal(diags[0])
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		tb.Fatal(err)
	}
	return prog
}

// BenchmarkSchedule runs the generated plans on the VM with vm.NopHost:
// every step is examined, its condition evaluated, its input filled and it
// is dispatched on a goroutine; the host does nothing. ns/step and
// allocs/step are ns/op and allocs/op over the number of steps (the
// allocations of the dispatch goroutines included).
func BenchmarkSchedule(b *testing.B) {
	ctx := context.Background()
	for _, sz := range Sizes {
		prog := lowerGen(b, sz.Steps)
		b.Run(sz.Name, func(b *testing.B) {
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				rep, err := vm.Run(ctx, prog, vm.NopHost{}, vm.Options{})
				if err != nil || !rep.Completed || rep.Succeeded != sz.Steps {
					b.Fatalf("run: %v %s", err, rep.Summary)
				}
			}
			runtime.ReadMemStats(&after)
			steps := float64(b.N) * float64(sz.Steps)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/steps, "allocs/step")
		})
	}
}

// BenchmarkHandoff is the scheduling figure's peer: the least a scheduler
// that runs each step's host call on a goroutine other than its own pays a
// step when nothing overlaps, one round trip to a waiting goroutine and
// back over unbuffered channels.
func BenchmarkHandoff(b *testing.B) {
	req, resp := make(chan int32), make(chan int32)
	go func() {
		for i := range req {
			resp <- i
		}
		close(resp)
	}()
	b.ReportAllocs()
	var i int32
	for b.Loop() {
		req <- i
		i = <-resp + 1
	}
	close(req)
	<-resp
}
