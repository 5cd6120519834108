package sandbox

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// The per-step cost of `true`: started plainly (exec), in a leaf cgroup
// (leaf), in a leaf through the scope's spawner with a protected path
// (protected), and through a shim of its own per step (shim-per-step:
// re-exec, mount namespace, read-only bind, Landlock). Run with
//
//	go test -run '^$' -bench . -benchtime 2000x ./host/sandbox
func BenchmarkTrue(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("leaf", func(b *testing.B) {
		benchSteps(b, openTestScope(b), Spec{Argv: []string{"true"}}, 1)
	})
	b.Run("protected", func(b *testing.B) {
		benchSteps(b, protectedScope(b), Spec{Argv: []string{"true"}, Protect: []string{b.TempDir()}}, 1)
	})
	b.Run("shim-per-step", func(b *testing.B) {
		s := protectedScope(b)
		s.sys.perStep = true
		benchSteps(b, s, Spec{Argv: []string{"true"}, Protect: []string{b.TempDir()}}, 1)
	})
}

// One op is 200 `true` steps, 16 at a time: the figure, against
// `seq 200 | xargs -P 16 -n 1 true`. The interleaved sub-benchmark runs
// one round of each per op, in turn, protected steps with every
// protection on, and reports their ratio (planc/xargs), so that a machine
// busy with other work weighs on both alike:
//
//	go test -run '^$' -bench 200x16/interleaved -benchtime 20x ./host/sandbox
func Benchmark200x16(b *testing.B) {
	xargs := func(b *testing.B) {
		if out, err := exec.Command("sh", "-c", "seq 200 | xargs -P 16 -n 1 true").CombinedOutput(); err != nil {
			b.Fatal(err, string(out))
		}
	}
	b.Run("xargs", func(b *testing.B) {
		for b.Loop() {
			xargs(b)
		}
	})
	b.Run("leaf", func(b *testing.B) {
		s := openTestScope(b)
		for b.Loop() {
			runSteps(b, s, Spec{Argv: []string{"true"}}, 200)
		}
	})
	protected := func(b *testing.B) (*Scope, Spec) {
		return protectedScope(b), Spec{Argv: []string{"true"}, Protect: []string{b.TempDir()}}
	}
	b.Run("protected", func(b *testing.B) {
		s, sp := protected(b)
		for b.Loop() {
			runSteps(b, s, sp, 200)
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		s, sp := protected(b)
		runSteps(b, s, sp, 16) // the spawner is up before the clock runs
		var tx, tp time.Duration
		i := 0
		for b.Loop() {
			rounds := []func(){
				func() { t0 := time.Now(); xargs(b); tx += time.Since(t0) },
				func() { t0 := time.Now(); runSteps(b, s, sp, 200); tp += time.Since(t0) },
			}
			rounds[i%2]()
			rounds[(i+1)%2]()
			i++
		}
		b.ReportMetric(float64(tx.Nanoseconds())/float64(i), "xargs-ns/op")
		b.ReportMetric(float64(tp.Nanoseconds())/float64(i), "planc-ns/op")
		b.ReportMetric(float64(tp)/float64(tx), "planc/xargs")
	})
}

// runSteps runs n steps sp in s, 16 at a time.
func runSteps(b *testing.B, s *Scope, sp Spec, n int) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if r := s.Run(context.Background(), sp); r.Err != nil {
				b.Error(r.Err)
			}
		})
	}
	wg.Wait()
}

// benchSteps runs n steps sp in s per op, 16 at a time.
func benchSteps(b *testing.B, s *Scope, sp Spec, n int) {
	for b.Loop() {
		runSteps(b, s, sp, n)
	}
}

// One op opens a scope, runs one step and closes the scope: with a
// protected path it includes starting the scope's spawner.
func BenchmarkScope(b *testing.B) {
	for _, protected := range []bool{false, true} {
		name := "plain"
		if protected {
			name = "protected"
		}
		b.Run(name, func(b *testing.B) {
			sp := Spec{Argv: []string{"true"}}
			if protected {
				if off := protectedScope(b).ProtectionOff(); off != "" {
					b.Skip(off)
				}
				sp.Protect = []string{b.TempDir()}
			}
			for b.Loop() {
				s, err := OpenScope(testPrefix + "bench")
				if err != nil {
					b.Fatal(err)
				}
				if r := s.Run(context.Background(), sp); r.Err != nil {
					b.Error(r.Err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
