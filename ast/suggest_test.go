package ast

import (
	"math/rand/v2"
	"testing"
)

// TestSuggest: did-you-mean offers the closest known name within edit
// distance 2 (issue 2), the earliest on a tie, never the name itself, and
// nothing at distance 3 or for names too long to compare.
func TestSuggest(t *testing.T) {
	long := string(make([]byte, 70))
	for _, tt := range []struct {
		name  string
		known []string
		want  string
	}{
		{"depends-on", []string{"id", "depends_on", "if"}, "depends_on"},    // 1 substitution
		{"dependson", []string{"depends_on"}, "depends_on"},                 // 1 insertion
		{"biuld", []string{"build", "test"}, "build"},                       // transposition = 2
		{"tset", []string{"test", "tests"}, "test"},                         // 2, and nearer than tests
		{"abc", []string{"xyz"}, ""},                                        // 3: too far
		{"retry", []string{"retries"}, ""},                                  // 3: too far
		{"ab", []string{"ax", "ay"}, "ax"},                                  // tie: earliest
		{"ab", []string{"ay", "ax"}, "ay"},                                  // tie: earliest
		{"notes", []string{"notes", "note"}, "note"},                        // the name itself is never offered
		{"", []string{"a", "ab", "abc"}, "a"},                               // insertions from nothing
		{long, []string{long + "x", long[:69]}, ""},                         // over 64 bytes: not compared
		{"success", []string{"success", "failed", "skipped"}, ""},           // equal: nothing to suggest
		{"sucess", []string{"success", "failed", "skipped"}, "success"},     // status literal
		{"contine", []string{"fail", "skip", "continue"}, "continue"},       // on_error
		{"shell", []string{"tool", "shell", "capsule"}, ""},                 // only equal or far
		{"caspule", []string{"tool", "shell", "capsule"}, "capsule"},        // transposition
		{"objectiv", []string{"objective"}, "objective"},                    // capsule input key
		{"s1", []string{"s10", "s2", "s1x"}, "s10"},                         // all distance 1: earliest
		{"localworker", []string{"local/worker", "worker"}, "local/worker"}, // 1 insertion beats 5
	} {
		if got := Suggest(tt.name, tt.known); got != tt.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tt.name, tt.known, got, tt.want)
		}
	}
}

// TestEditDistanceMatchesPlain: the early-stopping distance equals the
// textbook Levenshtein distance capped at the limit, on random short
// strings over a small alphabet (so near misses are common).
func TestEditDistanceMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]byte, rng.IntN(9))
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return string(b)
	}
	for range 20000 {
		a, b, limit := word(), word(), 1+rng.IntN(4)
		if got, want := editDistance(a, b, limit), min(plainLevenshtein(a, b), limit); got != want {
			t.Fatalf("editDistance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	}
}

func plainLevenshtein(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	return d[len(a)][len(b)]
}
