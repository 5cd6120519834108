package ast

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randomNames returns n names over a small alphabet, mostly short (so
// near misses are common), some over 64 bytes, some repeated.
func randomNames(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		switch rng.IntN(20) {
		case 0:
			out[i] = strings.Repeat("a", 60+rng.IntN(10)) // around the 64-byte edge
		case 1:
			if i > 0 {
				out[i] = out[rng.IntN(i)]
				continue
			}
		}
		b := make([]byte, rng.IntN(9))
		for j := range b {
			b[j] = "abcA!"[rng.IntN(5)]
		}
		if out[i] == "" {
			out[i] = string(b)
		}
	}
	return out
}

// TestSuggesterMatchesSuggest: with no budget, the Suggester answers
// exactly what Suggest answers, for names known and unknown, near and far.
func TestSuggesterMatchesSuggest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 300 {
		known := randomNames(rng, rng.IntN(60))
		sg := NewSuggesterBudget(known, -1)
		for _, name := range append(randomNames(rng, 40), known...) {
			if got, want := sg.Suggest(name), Suggest(name, known); got != want {
				t.Fatalf("round %d: Suggest(%q) = %q, want %q; known %q", round, name, got, want, known)
			}
		}
		if sg.Exhausted() {
			t.Fatal("a Suggester without a budget ran out")
		}
	}
}

// TestSuggesterBudget: with a budget, every answer given before the
// budget ran out is Suggest's, a name the budget ran out on gets "", and
// so does every later name.
func TestSuggesterBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	exhausted := 0
	for round := range 300 {
		known := randomNames(rng, rng.IntN(80))
		sg := NewSuggesterBudget(known, rng.IntN(2000))
		for _, name := range randomNames(rng, 60) {
			before := sg.Exhausted()
			got := sg.Suggest(name)
			switch {
			case before && got != "":
				t.Fatalf("round %d: %q after the budget ran out", round, got)
			case !sg.Exhausted() || got != "":
				if want := Suggest(name, known); got != want {
					t.Fatalf("round %d: Suggest(%q) = %q, want %q", round, name, got, want)
				}
			}
		}
		if sg.Exhausted() {
			exhausted++
		}
	}
	if exhausted == 0 || exhausted == 300 {
		t.Errorf("%d of 300 budgets ran out: the test lost its reach", exhausted)
	}
}

// FuzzSuggester: for any known names (one a line) and name, the bounded
// did-you-mean without a budget returns what the unbounded one returns.
func FuzzSuggester(f *testing.F) {
	f.Add("depends_on\nid\nif", "depends-on")
	f.Add("s10\ns2\ns1x", "s1")
	f.Add("a\nab\nabc", "")
	f.Add("ba\nab", "aa")
	f.Fuzz(func(t *testing.T, list, name string) {
		known := strings.Split(list, "\n")
		if got, want := NewSuggesterBudget(known, -1).Suggest(name), Suggest(name, known); got != want {
			t.Fatalf("Suggest(%q) = %q, want %q; known %q", name, got, want, known)
		}
	})
}

// TestBagDistanceBound: the bag distance never exceeds the edit distance.
func TestBagDistanceBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		a, b := randomNames(rng, 2)[0], randomNames(rng, 2)[1]
		if len(a) > 64 || len(b) > 64 {
			continue
		}
		ha, hb := histogram(a), histogram(b)
		if lb, d := bagDistance(&ha, &hb, len(a), len(b)), plainLevenshtein(a, b); lb > d {
			t.Fatalf("bag distance %d > edit distance %d for %q, %q", lb, d, a, b)
		}
	}
}

// TestBagDistanceSWAR: the word-at-a-time bag distance equals the one
// counted class by class, for names up to 64 bytes of any bytes.
func TestBagDistanceSWAR(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 20000 {
		a, b := make([]byte, rng.IntN(65)), make([]byte, rng.IntN(65))
		for _, s := range [][]byte{a, b} {
			hot := byte(rng.IntN(256)) // many bytes of one class at times
			for i := range s {
				s[i] = byte(rng.IntN(256))
				if rng.IntN(2) == 0 {
					s[i] = hot
				}
			}
		}
		var ca, cb [32]int
		for _, c := range a {
			ca[c&31]++
		}
		for _, c := range b {
			cb[c&31]++
		}
		sum := 0
		for i := range ca {
			sum += max(ca[i]-cb[i], cb[i]-ca[i])
		}
		want := (sum + max(len(a)-len(b), len(b)-len(a))) / 2
		ha, hb := histogram(string(a)), histogram(string(b))
		if got := bagDistance(&ha, &hb, len(a), len(b)); got != want {
			t.Fatalf("bagDistance(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}
