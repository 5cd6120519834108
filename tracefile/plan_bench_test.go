package tracefile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/vm"
)

// benchPlan returns n steps: a chain in which each step also depends on
// the step 7 back, every fourth a tool step with a reference to the one
// before, the rest shell steps.
func benchPlan(n int) []string {
	steps := make([]string, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, `{"id": "step-%d"`, i)
		if i%4 == 0 && i > 0 {
			fmt.Fprintf(&b, `, "tool": "notes", "input": {"body": "$step-%d.output"}`, i-1)
		} else {
			b.WriteString(`, "shell": "true"`)
		}
		if i > 0 {
			fmt.Fprintf(&b, `, "depends_on": ["step-%d"`, i-1)
			if i >= 7 {
				fmt.Fprintf(&b, `, "step-%d"`, i-7)
			}
			b.WriteString("]")
		}
		b.WriteString("}")
		steps[i] = b.String()
	}
	return steps
}

// lastTimer is the no-op host, timing the dispatch of the last step.
type lastTimer struct {
	vm.NopHost
	last  int
	start time.Time
	took  time.Duration
}

func (h *lastTimer) RunShell(_ context.Context, c vm.Call) (string, error) {
	if c.Index == h.last {
		h.took = time.Since(h.start)
	}
	return "", nil
}

// BenchmarkReadPlan is issue 14's read-back figure: a session whose
// 10,000-step plan failed at its last step (trace, 10,000 kept outputs,
// the output index, the kept report). ns-to-last is the time from the
// start to the last step's dispatch: for first-run, vm.Run's alone with
// the no-op host; for redrive-*, reading the plan back (ReadPlan and
// Prior) and then vm.Run with the priors. redrive-report takes the
// outputs from the kept report (a run that ended); redrive-index from the
// output index (no report: planc died); redrive-outputs from the 10,000
// files under outputs/ (neither: a session kept without an index).
func BenchmarkReadPlan(b *testing.B) {
	const n = 10_000
	prog := lower(b, benchPlan(n)...)
	dir := b.TempDir()
	k := newKeeper(b, dir, 1).withIndex(b)
	k.fail = func(id string, _ int) bool { return id == fmt.Sprintf("step-%d", n-1) }
	rep, err := vm.Run(context.Background(), prog, k, vm.Options{PlanFile: tracefile.PlanFile(1), PlanSHA256: strings.Repeat("a", 64)})
	if err != nil || rep.FailedStep == nil {
		b.Fatalf("first run: %v %s", err, rep.Summary)
	}
	keepReport(b, dir, 1, 0, rep)
	noReport := b.TempDir()
	if err := os.CopyFS(noReport, os.DirFS(dir)); err != nil {
		b.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(noReport, tracefile.ReportsDir)); err != nil {
		b.Fatal(err)
	}
	b.Run("steps=10000/first-run", func(b *testing.B) {
		var total time.Duration
		for b.Loop() {
			h := &lastTimer{last: n - 1, start: time.Now()}
			if _, err := vm.Run(context.Background(), prog, h, vm.Options{}); err != nil || h.took == 0 {
				b.Fatal(err)
			}
			total += h.took
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns-to-last")
	})
	noIndex := b.TempDir()
	if err := os.CopyFS(noIndex, os.DirFS(noReport)); err != nil {
		b.Fatal(err)
	}
	if err := os.Remove(filepath.Join(noIndex, filepath.FromSlash(tracefile.OutputIndexPath(1)))); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, dir string }{{"redrive-report", dir}, {"redrive-index", noReport}, {"redrive-outputs", noIndex}} {
		b.Run("steps=10000/"+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var total, read time.Duration
			for b.Loop() {
				h := &lastTimer{last: n - 1, start: time.Now()}
				prior := readBackB(b, bc.dir, prog)
				read += time.Since(h.start)
				if _, err := vm.Run(context.Background(), prog, h, vm.Options{Redrive: 1, Prior: prior}); err != nil || h.took == 0 {
					b.Fatal(err)
				}
				total += h.took
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns-to-last")
			b.ReportMetric(float64(read.Nanoseconds())/float64(b.N), "ns-read-back")
		})
	}
}

func readBackB(b *testing.B, dir string, prog *ir.Program) []vm.Prior {
	rec, err := tracefile.ReadPlan(dir, 1)
	if err != nil {
		b.Fatal(err)
	}
	prior, notes := rec.Prior(prog, nil)
	if len(notes) > 0 || len(rec.Notes) > 0 || !prior[len(prior)-2].Reused() || prior[len(prior)-1].Reused() {
		b.Fatalf("read back: %v %v", notes, rec.Notes)
	}
	return prior
}
