package traceview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "0d": 0, "36h": 36 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "-1d", "1.5d", "-2h", "soon"} {
		if _, err := ParseAge(in); err == nil || !strings.Contains(err.Error(), "want whole days such as 7d") {
			t.Errorf("ParseAge(%q): %v, want a refusal saying what to write", in, err)
		}
	}
	// The longest a time.Duration holds, in whole days; one day more would
	// overflow and wrap around to a negative or tiny age.
	if got, err := ParseAge("106751d"); err != nil || got != 106751*24*time.Hour {
		t.Errorf("ParseAge(106751d) = %v, %v", got, err)
	}
	for _, in := range []string{"106752d", "365000d", "9000000000000d"} {
		if got, err := ParseAge(in); err == nil || !strings.Contains(err.Error(), "at most 106751d") {
			t.Errorf("ParseAge(%q) = %v, %v; want a refusal naming the most it takes", in, got, err)
		}
	}
}

// TestFindHome: the sessions of the nearest directory upward whose .planc/
// holds sessions or a capsule, relative to the current directory; else
// .planc/sessions here.
func TestFindHome(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	if h := FindHome(); h.Found || h.Dir != filepath.Join(".planc", "sessions") || !strings.Contains(h.Where(), "in the current directory or a parent") {
		t.Errorf("no project: %+v (%s)", h, h.Where())
	}
	if _, err := Locate(nil); err == nil || !strings.HasPrefix(err.Error(), "no sessions: there is no .planc/sessions in the current directory or a parent") {
		t.Errorf("Locate with no sessions: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".planc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".planc", "capsule.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("..", "..", ".planc", "sessions")
	if h := FindHome(); !h.Found || h.Dir != want || h.Where() != want {
		t.Errorf("a project two levels up: %+v, want %s", h, want)
	}
	if err := os.MkdirAll(filepath.Join(root, ".planc", "sessions", "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Locate([]string{"s1"}); err != nil || got != filepath.Join(want, "s1") {
		t.Errorf("Locate(a session id) = %q, %v", got, err)
	}
	if _, err := Locate([]string{"nope"}); err == nil || !strings.HasPrefix(err.Error(), "no session at nope; ") {
		t.Errorf("Locate(an unknown id): %v", err)
	}
}
