package vm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestPoolNeverQueuesBehindAHostCall: the run reuses its dispatch
// goroutines, but a step made ready while every one of them is in a host
// call still goes at once. Eighty shell steps block in the host (more than
// the pool holds) until the last step of a ten-step chain runs; the chain
// comes first in the plan (its steps reuse the goroutine a finished one
// left idle) or last (every pooled goroutine is blocked). Were any step
// queued behind a blocked call, the chain would never end and the blocked
// steps would give up after the watchdog's minute and fail.
func TestPoolNeverQueuesBehindAHostCall(t *testing.T) {
	for _, chainFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("chain-first=%v", chainFirst), func(t *testing.T) {
			var chain, blocked []string
			for i := range 10 {
				s := fmt.Sprintf(`{"id": "c%d", "shell": "x"`, i)
				if i > 0 {
					s += fmt.Sprintf(`, "depends_on": ["c%d"]`, i-1)
				}
				chain = append(chain, s+"}")
			}
			for i := range 80 {
				blocked = append(blocked, fmt.Sprintf(`{"id": "b%d", "shell": "x"}`, i))
			}
			steps := append(blocked, chain...)
			if chainFirst {
				steps = append(chain, blocked...)
			}
			prog := compile(t, steps...)
			release := make(chan struct{})
			var once sync.Once
			watchdog := time.NewTimer(time.Minute)
			defer watchdog.Stop()
			h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
				switch {
				case c.Step.ID == "c9":
					once.Do(func() { close(release) })
				case strings.HasPrefix(c.Step.ID, "b"):
					select {
					case <-release:
					case <-watchdog.C:
						once.Do(func() { close(release) })
						return "", errors.New("the chain never ended: a step waited behind a blocked host call")
					}
				}
				return "ok", nil
			}}
			rep, err := vm.Run(context.Background(), prog, h, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Completed || rep.Succeeded != 90 {
				t.Fatalf("%s", rep.Summary)
			}
		})
	}
}
