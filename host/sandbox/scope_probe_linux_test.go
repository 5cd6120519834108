package sandbox

import (
	"sync"
	"testing"
)

// TestProbeConcurrent: probes running at once (one per serve connection,
// parallel tests) must not collide on one cgroup directory.
func TestProbeConcurrent(t *testing.T) {
	if err := Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope here: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() { errs <- Probe() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent probe: %v", err)
		}
	}
}
