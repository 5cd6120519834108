package main

import (
	"strings"
	"testing"
)

// TestPaired: per-round ratios are taken within a round (the k-th result of
// each benchmark), their median and range reported, and the GOMAXPROCS
// suffix dropped from names.
func TestPaired(t *testing.T) {
	raw := `goos: linux
BenchmarkParse/10k/planc-check-2   	  40	  30000000 ns/op	  35 MB/s
BenchmarkParse/100k/planc-check-2  	   3	 330000000 ns/op
BenchmarkParse/10k/planc-check-2   	  40	  60000000 ns/op
BenchmarkParse/100k/planc-check-2  	   3	 600000000 ns/op
BenchmarkParse/10k/planc-check-2   	  40	  20000000 ns/op
BenchmarkParse/100k/planc-check-2  	   3	 180000000 ns/op
PASS
`
	rs, err := parseRaw(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	med, lo, hi, ok := rs.paired("Parse/100k/planc-check", "Parse/10k/planc-check")
	if !ok || med != 10 || lo != 9 || hi != 11 {
		t.Fatalf("paired = %v %v %v %v, want 10 9 11 true", med, lo, hi, ok)
	}
	// The ratio of the medians would be 330/30 = 11: pairing removes the
	// slow second round's weight.
	if _, _, _, ok := rs.paired("Parse/100k/planc-check", "Parse/1k/planc-check"); ok {
		t.Fatal("paired found rounds for a benchmark that did not run")
	}
	g, txt, ok := growth(nil, rs, "Parse/%s/planc-check", "10k", "100k")
	if !ok || g != 10 || txt != "10.0× (rounds 9.0× to 11.0×)" {
		t.Fatalf("growth = %v %q %v", g, txt, ok)
	}
}
