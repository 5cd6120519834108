package tracefile_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/vm"
)

// TestPriorFromIndex: a redrive after planc died (no report) takes a
// short output from the output index, without its kept file; a long one
// from its kept file, cut as the index line says (the mark's name is the
// one the host gave, not the file's path); a torn line, or one of another
// attempt, is not taken, and the kept file is read instead.
func TestPriorFromIndex(t *testing.T) {
	dir := t.TempDir()
	prog := lower(t,
		`{"id": "short", "shell": "x"}`,
		`{"id": "long", "shell": "x"}`,
		`{"id": "big", "shell": "x"}`,
		`{"id": "flaky", "shell": "x", "retries": 1}`,
		`{"id": "torn", "shell": "x"}`,
		`{"id": "last", "shell": "x", "depends_on": ["short", "long", "big", "flaky", "torn"]}`)
	k := newKeeper(t, dir, 1).withIndex(t)
	long := strings.Repeat("l", sessionfmt.IndexedOutputMax+1)
	big := strings.Repeat("é", sessionfmt.OutputLimit) // 128 KiB: cut
	k.out = map[string]string{"short": "s\n", "long": long, "big": big, "flaky": "f", "torn": "t"}
	k.fail = func(id string, attempt int) bool { return id == "last" || id == "flaky" && attempt == 1 }
	rep, err := vm.Run(context.Background(), prog, k, vm.Options{PlanFile: sessionfmt.PlanFile(1), PlanSHA256: strings.Repeat("a", 64)})
	if err != nil || rep.FailedStep == nil {
		t.Fatalf("run: %v %s", err, rep.Summary)
	}
	outputs := filepath.Join(dir, "outputs", "plan-1")
	// The short output's file is gone: only the index can give it.
	if err := os.Remove(filepath.Join(outputs, "short.1.txt")); err != nil {
		t.Fatal(err)
	}
	// The file of torn's attempt says something else than its index line,
	// which is made torn: the file is what is read.
	os.WriteFile(filepath.Join(outputs, "torn.1.txt"), []byte("from the file"), 0o644)
	index := filepath.Join(dir, filepath.FromSlash(sessionfmt.OutputIndexPath(1)))
	b, _ := os.ReadFile(index)
	b = []byte(strings.Replace(string(b), `{"step_id":"torn","attempt":1,"bytes":1,"output":"t"}`, `{"step_id":"torn","attempt":1,"by`, 1))
	os.WriteFile(index, b, 0o644)
	// flaky's failed first attempt left a line; its success is attempt 2.
	if !strings.Contains(string(b), `{"step_id":"flaky","attempt":1,`) {
		t.Fatalf("index:\n%s", b)
	}

	_, prior := readBack(t, dir, 1, prog)
	var bigText string
	for _, s := range rep.Steps {
		if s.StepID == "big" {
			bigText = *s.Output
		}
	}
	if !strings.HasSuffix(bigText, "whole text at outputs/plan-1/big.1.txt]") {
		t.Fatalf("big's text ends %q", bigText[len(bigText)-50:])
	}
	want := []vm.Prior{
		{Status: vm.StatusSuccess, Output: "s\n", Attempt: 1},
		{Status: vm.StatusSuccess, Output: long, Attempt: 1},
		{Status: vm.StatusSuccess, Output: bigText, Attempt: 1},
		{Status: vm.StatusSuccess, Output: "f", Attempt: 2},
		{Status: vm.StatusSuccess, Output: "from the file", Attempt: 1},
		{Status: vm.StatusFailed, Error: "exit status 1", Attempt: 1},
	}
	if d := cmp.Diff(want, prior); d != "" {
		t.Errorf("priors (-want +got):\n%s", d)
	}

	// A long output's file that is not the length its line says is not
	// the output the step had, and a missing one gives none: each step runs
	// again, with a note.
	os.WriteFile(filepath.Join(outputs, "long.1.txt"), []byte("changed"), 0o644)
	os.Remove(filepath.Join(outputs, "big.1.txt"))
	rec, err := tracefile.ReadPlan(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	prior, notes := host.RedrivePrior(rec, prog, nil)
	if prior[1].Reused() || prior[2].Reused() || len(notes) != 2 ||
		notes[0].Text != `step "long" succeeded, but its kept output outputs/plan-1/long.1.txt cannot be read or is not the 4097 bytes its output index line says; it runs again` ||
		!strings.HasPrefix(notes[1].Text, `step "big" succeeded, but its kept output outputs/plan-1/big.1.txt cannot be read`) {
		t.Errorf("priors %v, notes %v", prior[1:3], notes)
	}
}

// TestIndexRecord: what NewIndexRecord keeps of an output, and its line.
func TestIndexRecord(t *testing.T) {
	for _, tc := range []struct {
		name        string
		whole       int64
		text, shown string
		want        string
	}{
		{"short", 3, "a\"\n", "x", `{"step_id":"a/b é","attempt":2,"bytes":3,"output":"a\"\n"}`},
		{"empty", 0, "", "x", `{"step_id":"a/b é","attempt":2,"bytes":0,"output":""}`},
		{"long", 5000, strings.Repeat("x", 5000), "x", `{"step_id":"a/b é","attempt":2,"bytes":5000}`},
		{"binary", 2, "\xff\xfe", "x", `{"step_id":"a/b é","attempt":2,"bytes":2}`},
		{"cut", 70000, "cut text", "outputs/plan-1/a.txt", `{"step_id":"a/b é","attempt":2,"bytes":70000,"output":"cut text","shown":"outputs/plan-1/a.txt"}`},
	} {
		r, ok := sessionfmt.NewIndexRecord("a/b é", 2, tc.whole, tc.text, tc.shown)
		if got := string(sessionfmt.AppendIndexRecord(nil, r)); !ok || got != tc.want+"\n" {
			t.Errorf("%s: %s (%v), want %s", tc.name, got, ok, tc.want)
		}
	}
	// What would not read back as it is has no line.
	if _, ok := sessionfmt.NewIndexRecord("a\xff", 1, 1, "x", ""); ok {
		t.Error("an id that is not UTF-8 got a line")
	}
	if _, ok := sessionfmt.NewIndexRecord("a", 1, 70000, "cut", "dir\xff/a.1.txt"); ok {
		t.Error("a cut mark naming a path that is not UTF-8 got a line")
	}
}
