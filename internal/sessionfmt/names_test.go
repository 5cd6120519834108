package sessionfmt_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
)

// TestStepFileName: any step id (S4) gives a name that is one path
// component, never hidden, at most a few hundred bytes, that a file can
// have, and that StepID reverses unless shortened.
func TestStepFileName(t *testing.T) {
	long := strings.Repeat("ab/", 1<<18) // a 768 KiB id
	for _, tt := range []struct{ id, want string }{
		{"build", "build"},
		{"Build_2-x", "Build_2-x"},
		{"", ""},
		{".", "%2E"},
		{"..", "%2E%2E"},
		{"a/b", "a%2Fb"},
		{"a b", "a%20b"},
		{"a%2Fb", "a%252Fb"},
		{"~", "%7E"},
		{"x\x00y", "x%00y"},
		{"ünï", "%C3%BCn%C3%AF"},
		{".hidden", "%2Ehidden"},
	} {
		if got := sessionfmt.StepFileName(tt.id); got != tt.want {
			t.Errorf("StepFileName(%q) = %q, want %q", tt.id, got, tt.want)
		}
		if back, ok := sessionfmt.StepID(tt.want); !ok || back != tt.id {
			t.Errorf("StepID(%q) = %q, %v; want %q", tt.want, back, ok, tt.id)
		}
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[string]string{}
	ids := []string{long, long + "x", long[:len(long)-1], strings.Repeat("%", 200), strings.Repeat("%", 201), strings.Repeat("a", 128), strings.Repeat("a", 129)}
	for range 3000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			const alphabet = "aA./%~ \x00\xff-_"
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		ids = append(ids, string(b))
	}
	for _, id := range ids {
		name := sessionfmt.StepFileName(id)
		if prev, dup := seen[name]; dup && prev != id {
			t.Fatalf("%q and %q share the name %q", prev, id, name)
		}
		seen[name] = id
		if strings.ContainsAny(name, "/\x00.") || len(name) > 161 {
			t.Fatalf("StepFileName(%.40q) = %.60q: not a safe name", id, name)
		}
		back, ok := sessionfmt.StepID(name)
		if shortened := strings.Contains(name, "~"); shortened == ok || (ok && back != id) {
			t.Fatalf("StepID(%.60q) = %.40q, %v for id %.40q", name, back, ok, id)
		}
		file := filepath.Join(dir, filepath.FromSlash(sessionfmt.OutputPath(1, id, 12)))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatalf("output file for %.40q: %v", id, err)
		}
	}
	for _, bad := range []string{"a/b", "%2", "%2e", "%41", "a~b", "é"} {
		if _, ok := sessionfmt.StepID(bad); ok {
			t.Errorf("StepID(%q) took a name StepFileName never gives", bad)
		}
	}
}

func TestKeptPaths(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{sessionfmt.PlanFile(3), "plans/plan-3.json"},
		{sessionfmt.OutputPath(3, "a b", 2), "outputs/plan-3/a%20b.2.txt"},
		{sessionfmt.ReportPath(3), "reports/plan-3.json"},
		{sessionfmt.RedriveReportPath(3, 0), "reports/plan-3.redrive-0.json"},
		{sessionfmt.RedriveReportPath(3, 2), "reports/plan-3.redrive-2.json"},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
	for file, want := range map[string]int{"plans/plan-1.json": 1, "plans/plan-120.json": 120, "plans/plan-0.json": 0, "plans/plan-01.json": 0,
		"plans/plan-.json": 0, "plans/plan-1.jsonx": 0, "plan-1.json": 0, "plans/plan-1x.json": 0, "plans/plan-9999999999.json": 0, "": 0} {
		n, ok := sessionfmt.PlanNumber(file)
		if n != want || ok != (want > 0) {
			t.Errorf("PlanNumber(%q) = %d, %v; want %d", file, n, ok, want)
		}
	}
}

// TestCutText is S20: within the limit the text is whole; over it, cut on
// a UTF-8 boundary and marked with the whole length and the file.
func TestCutText(t *testing.T) {
	if got := sessionfmt.CutText("héllo", 6, "f"); got != "héllo" {
		t.Errorf("within the limit: %q", got)
	}
	if got := sessionfmt.CutText("héllo", 2, "out/a.1.txt"); got != "h\n[cut: 6 bytes in all; whole text at out/a.1.txt]" {
		t.Errorf("cut: %q", got)
	}
	for limit := range 8 {
		if n := sessionfmt.CutPoint("aé€😀", limit); n > limit || !strings.HasPrefix("aé€😀", "aé€😀"[:n]) || (n < 10 && !utf8Start("aé€😀", n)) {
			t.Errorf("CutPoint(_, %d) = %d", limit, n)
		}
	}
}

func utf8Start(s string, i int) bool { return i == len(s) || s[i] < 0x80 || s[i] >= 0xC0 }
