package sandbox

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestCopyOutPooled: a step's output reaches Spec.Out whole, through a
// buffer that is reused from step to step rather than made for each.
func TestCopyOutPooled(t *testing.T) {
	copyOnce := func(text string) string {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		go func() {
			pw.WriteString(text)
			pw.Close()
		}()
		var b bytes.Buffer
		// A writer that is no io.ReaderFrom, as the host's Sink.
		copyOut(struct{ io.Writer }{&b}, pr)
		return b.String()
	}
	long := strings.Repeat("0123456789abcdef", 10<<10) // 160 KiB: several buffers' worth
	if got := copyOnce(long); got != long {
		t.Fatalf("copied %d bytes, want %d", len(got), len(long))
	}
	const runs = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		if got := copyOnce("x"); got != "x" {
			t.Fatalf("copied %q", got)
		}
	}
	runtime.ReadMemStats(&after)
	// A 32 KiB buffer per copy would be 1.6 MB; the pool may lose its
	// buffer to a GC now and then, and the pipe, its files and goroutine
	// and the other goroutines of the process allocate too (8.3 KB a copy
	// was seen under -race), so the bound is half a buffer.
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 16<<10 {
		t.Errorf("%d bytes allocated per copy; want a pooled buffer", per)
	}
}
