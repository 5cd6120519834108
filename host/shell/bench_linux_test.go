package shell

import (
	"context"
	"os/exec"
	"sync"
	"testing"
)

// The per-step cost of `true`: started plainly (exec), in a leaf cgroup
// (leaf), in a leaf through the scope's spawner with a protected path
// (protected), and through a shim of its own per step (shim-per-step:
// re-exec, mount namespace, read-only bind, Landlock). Run with
//
//	go test -run '^$' -bench . -benchtime 2000x ./host/shell
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
// `seq 200 | xargs -P 16 -n 1 true` measured in the same run.
func Benchmark200x16(b *testing.B) {
	b.Run("xargs", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command("sh", "-c", "seq 200 | xargs -P 16 -n 1 true").CombinedOutput(); err != nil {
				b.Fatal(err, string(out))
			}
		}
	})
	b.Run("leaf", func(b *testing.B) {
		benchSteps(b, openTestScope(b), Spec{Argv: []string{"true"}}, 200)
	})
	b.Run("protected", func(b *testing.B) {
		benchSteps(b, protectedScope(b), Spec{Argv: []string{"true"}, Protect: []string{b.TempDir()}}, 200)
	})
}

// benchSteps runs n steps sp in s per op, 16 at a time.
func benchSteps(b *testing.B, s *Scope, sp Spec, n int) {
	for b.Loop() {
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
