package check

import (
	"strconv"
	"strings"
	"testing"
)

// TestNumberLikeMatchesParseFloat: numberLike's first-byte filter never
// changes ParseFloat's answer (S11's numeric-comparison warning).
func TestNumberLikeMatchesParseFloat(t *testing.T) {
	for _, lit := range []string{"", " ", "m", "10", " 10 ", "-3", "+4", ".5", "5.", "1e3", "1e400", "inf", "+Inf",
		"-infinity", "NaN", "nan", "0x1p-2", "0x_1p0", "1_000", "_1", "-", "i", "n", "Infinityx", "\t7\n", "0b101", "e5"} {
		_, err := strconv.ParseFloat(strings.TrimSpace(lit), 64)
		if got, want := numberLike(lit), err == nil; got != want {
			t.Errorf("numberLike(%q) = %v, ParseFloat says %v", lit, got, want)
		}
	}
}
