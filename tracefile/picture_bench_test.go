package tracefile_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
	"github.com/planc/planc/vm"
)

// BenchmarkTracePicture measures `planc trace html` and `planc trace
// graph` on a session whose 10,000-step plan ran (its trace, its plan file
// and 10,000 kept outputs): the session opened, the page or the drawing
// written.
func BenchmarkTracePicture(b *testing.B) {
	const n = 10_000
	steps := benchPlan(n)
	prog := lower(b, steps...)
	dir := filepath.Join(b.TempDir(), "20250102T150405Z-a1b2c3")
	tracetest.Write(b, dir, map[string]string{
		"session.json":         tracetest.SessionJSON("20250102T150405Z-a1b2c3", "local/c", "", ""),
		sessionfmt.PlanFile(1): `{"id": "p", "steps": [` + strings.Join(steps, ",\n") + `]}`,
	})
	k := newKeeper(b, dir, 1)
	if _, err := vm.Run(context.Background(), prog, k, vm.Options{PlanFile: sessionfmt.PlanFile(1), PlanSHA256: strings.Repeat("a", 64)}); err != nil {
		b.Fatal(err)
	}
	for _, view := range []string{"html", "graph-dot"} {
		b.Run(fmt.Sprintf("steps=%d/%s", n, view), func(b *testing.B) {
			b.ReportAllocs()
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				s, err := tracefile.OpenTop(dir)
				if err != nil {
					b.Fatal(err)
				}
				if view == "html" {
					err = traceview.WriteHTML(&out, s, 1)
				} else {
					err = traceview.WriteGraph(&out, s, 1, "dot")
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			if view == "html" {
				if got := strings.Count(out.String(), `<rect class="bar"`); got != n {
					b.Fatalf("the page has %d bars, want %d", got, n)
				}
			}
			b.SetBytes(int64(out.Len()))
		})
	}
}
