package tracefile_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
	"github.com/planc/planc/vm"
)

// BenchmarkTraceViews measures what `planc trace` does on a session whose
// 10,000-step plan failed at its last step (its trace and 10,000 kept
// outputs): logs (OpenTop, StepLogs of the last step, its output read),
// an unknown step's did-you-mean over every step id, list over the one
// session, and steps --format json.
func BenchmarkTraceViews(b *testing.B) {
	const n = 10_000
	prog := lower(b, benchPlan(n)...)
	root := b.TempDir()
	dir := filepath.Join(root, "20250102T150405Z-a1b2c3")
	tracetest.Write(b, dir, map[string]string{"session.json": tracetest.SessionJSON("20250102T150405Z-a1b2c3", "local/c", "", "")})
	k := newKeeper(b, dir, 1)
	last := fmt.Sprintf("step-%d", n-1)
	k.fail = func(id string, _ int) bool { return id == last }
	if _, err := vm.Run(context.Background(), prog, k, vm.Options{PlanFile: sessionfmt.PlanFile(1), PlanSHA256: strings.Repeat("a", 64)}); err != nil {
		b.Fatal(err)
	}
	open := func(b *testing.B) *tracefile.Session {
		s, err := tracefile.OpenTop(dir)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("steps=10000/logs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := open(b).StepLogs(1, last, true)
			if err != nil || len(l.Attempts) != 1 || !l.Attempts[0].Kept {
				b.Fatalf("%+v %v", l, err)
			}
		}
	})
	b.Run("steps=10000/logs-unknown-step", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := open(b).StepLogs(1, "step-99999", true); err == nil {
				b.Fatal("no error")
			}
		}
	})
	b.Run("steps=10000/list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if list, err := traceview.ListSessions(root); err != nil || len(list) != 1 {
				b.Fatal(err)
			}
		}
	})
	b.Run("steps=10000/steps-json", func(b *testing.B) {
		b.ReportAllocs()
		s := open(b)
		for b.Loop() {
			if err := traceview.WriteStepsJSON(io.Discard, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
