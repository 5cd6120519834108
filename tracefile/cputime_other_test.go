//go:build !unix

package tracefile_test

import (
	"testing"
	"time"
)

// cpuTime is 0 where getrusage is missing: the CPU ratio is then not
// measured.
func cpuTime(*testing.B) time.Duration { return 0 }
