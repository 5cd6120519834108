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

// TestProcRows: the process benchmarks become rows beside xargs, the
// 200-step planc figure held to issue 21's 0.9× on the ratio paired by
// round, the others for reference; a run without them has no such rows,
// and a process row that misses is listed but never profiled (go test's
// profiles do not see planc's processes).
func TestProcRows(t *testing.T) {
	csv := `pkg: github.com/planc/planc/e2e
,bench.txt,
,sec/op,CI
Run200True/planc-2,0.15,∞
Run200True/go-exec-2,0.11,∞
Run200True/xargs-2,0.125,∞
Run1True/planc-2,0.026,∞
Run1True/go-exec-2,0.0027,∞
Run1True/xargs-2,0.0036,∞
`
	raw := `BenchmarkRun200True/planc-2   	 20	 150000000 ns/op
BenchmarkRun200True/go-exec-2 	 20	 110000000 ns/op
BenchmarkRun200True/xargs-2   	 20	 125000000 ns/op
BenchmarkRun200True/planc-2   	 20	 140000000 ns/op
BenchmarkRun200True/go-exec-2 	 20	 100000000 ns/op
BenchmarkRun200True/xargs-2   	 20	 100000000 ns/op
`
	s, err := parseCSV(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := parseRaw(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	r := &report{}
	r.procRows(s, rs)
	if len(r.rows) != 4 {
		t.Fatalf("%d rows, want 4: %+v", len(r.rows), r.rows)
	}
	p200 := r.rows[0]
	// Rounds: 150/125 = 1.2 and 140/100 = 1.4, median 1.3.
	if p200.figure != "planc run, 200 `true` steps, 16 at a time" || p200.peer != "`seq 200 \\| xargs -P 16 -n 1 true`" || p200.ratio != "1.30× (rounds 1.20× to 1.40×)" ||
		p200.target != "≤ 0.9× xargs" || !p200.miss || p200.profile != "" {
		t.Errorf("200-step planc row: %+v", p200)
	}
	if g := r.rows[1]; g.miss || g.target != "—" || g.ratio != "0.94× (rounds 0.88× to 1.00×)" {
		t.Errorf("200-step go-exec row: %+v", g)
	}
	// One step: no rounds in raw, so the ratio of the medians.
	if one := r.rows[2]; one.miss || one.target != "—" || one.ratio != "7.22× (of the medians)" {
		t.Errorf("1-step planc row: %+v", one)
	}
	if len(r.misses()) != 1 || len(r.profiled()) != 0 {
		t.Errorf("misses %d, profiled %d; want the 200-step row listed and nothing profiled", len(r.misses()), len(r.profiled()))
	}
	empty := &report{}
	empty.procRows(stats{"sec/op": {}}, nil)
	if len(empty.rows) != 0 {
		t.Errorf("rows without the benchmarks: %+v", empty.rows)
	}
}
