package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/planc/planc/internal/sessionfmt"
)

// newTask is a task of plan n in a new session directory under a working
// directory of its own.
func newTask(t *testing.T, n int) *Task {
	t.Helper()
	work := t.TempDir()
	s, err := Create(filepath.Join(work, DefaultSessionsDir), sessionfmt.SessionInfo{Capsule: "local/planc", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	task := &Task{Session: s, Plan: &PlanFile{N: n}, WorkDir: work}
	t.Cleanup(task.Close)
	return task
}

// TestKeep: every dispatched attempt's whole output is kept at
// sessionfmt.OutputPath, but for an empty one, which has only its index
// line (0 bytes); a long one is cut on a UTF-8
// boundary with a mark naming that file; each gets its output index line.
func TestKeep(t *testing.T) {
	task := newTask(t, 2)
	big := strings.Repeat("a", sessionfmt.OutputLimit-1) + "€" + strings.Repeat("b", 100)
	cases := []struct {
		id      string
		attempt int
		out     string
	}{{"build", 1, "ok\n"}, {"a/b", 3, ""}, {"..", 1, big}, {"x", 2, strings.Repeat("y", sessionfmt.IndexedOutputMax+1)}}
	var texts []string
	for _, c := range cases {
		text, err := task.Keep(c.id, c.attempt, c.out, nil)
		if err != nil {
			t.Fatalf("Keep(%q): %v", c.id, err)
		}
		texts = append(texts, text)
		rel := sessionfmt.OutputPath(2, c.id, c.attempt)
		whole, err := os.ReadFile(filepath.Join(task.Session.Dir, filepath.FromSlash(rel)))
		if c.out == "" {
			if !os.IsNotExist(err) {
				t.Errorf("%s of an empty output: %v, want no file", rel, err)
			}
			continue
		}
		if err != nil || string(whole) != c.out {
			t.Errorf("%s holds %d bytes (%v), want %d", rel, len(whole), err, len(c.out))
		}
	}
	if texts[0] != "ok\n" || texts[1] != "" || texts[3] != cases[3].out {
		t.Errorf("texts within the limit changed: %q %q", texts[0], texts[1])
	}
	shown := ".planc/sessions/" + task.Session.Info.ID + "/outputs/plan-2/%2E%2E.1.txt"
	want := strings.Repeat("a", sessionfmt.OutputLimit-1) + "\n[cut: " + strconv.Itoa(len(big)) + " bytes in all; whole text at " + shown + "]"
	if texts[2] != want {
		t.Errorf("cut text ends %q, want %q", texts[2][len(texts[2])-90:], want[len(want)-90:])
	}
	if !utf8.ValidString(texts[2]) {
		t.Error("the cut text is not valid UTF-8")
	}
	task.Close()
	index, err := os.ReadFile(filepath.Join(task.Session.Dir, "outputs", "plan-2.index.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	wantIndex := `{"step_id":"build","attempt":1,"bytes":3,"output":"ok\n"}
{"step_id":"a/b","attempt":3,"bytes":0,"output":""}
{"step_id":"..","attempt":1,"bytes":` + strconv.Itoa(len(big)) + `,"shown":"` + shown + `"}
{"step_id":"x","attempt":2,"bytes":4097}
`
	if string(index) != wantIndex {
		t.Errorf("output index:\n%s\nwant:\n%s", index, wantIndex)
	}
}

// TestKeepIndexAfterTornLine: a writer that died mid-line left the index
// without its last newline; the next task's first line starts on a line
// of its own.
func TestKeepIndexAfterTornLine(t *testing.T) {
	task := newTask(t, 1)
	path := filepath.Join(task.Session.Dir, "outputs", "plan-1.index.jsonl")
	if err := os.WriteFile(path, []byte(`{"step_id":"a","att`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Keep("b", 1, "B", nil); err != nil {
		t.Fatal(err)
	}
	task.Close()
	if b, _ := os.ReadFile(path); string(b) != "{\"step_id\":\"a\",\"att\n{\"step_id\":\"b\",\"attempt\":1,\"bytes\":1,\"output\":\"B\"}\n" {
		t.Errorf("index: %q", b)
	}
}

// TestKeepFails: an output that cannot be kept fails the attempt, saying
// why, beside the step's own error.
func TestKeepFails(t *testing.T) {
	task := newTask(t, 1)
	// outputs/plan-1 is a file: nothing can be kept under it.
	if err := os.WriteFile(filepath.Join(task.Session.Dir, "outputs", "plan-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := task.Keep("s", 1, "hello", os.ErrDeadlineExceeded)
	if err == nil || !strings.Contains(err.Error(), "its output could not be kept") || !strings.Contains(err.Error(), os.ErrDeadlineExceeded.Error()) {
		t.Errorf("error %v", err)
	}
	if text != "hello" {
		t.Errorf("text %q", text)
	}
}

// TestKeepFile: a sub-capsule's answer file is copied whole to the
// attempt's kept output; its text is cut as Keep cuts; a missing answer is
// kept as an empty output (no file) and is an error.
func TestKeepFile(t *testing.T) {
	task := newTask(t, 1)
	src := filepath.Join(t.TempDir(), "answer.txt")
	big := strings.Repeat("é", sessionfmt.OutputLimit) // 2 bytes each
	if err := os.WriteFile(src, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := task.KeepFile("w", 2, src)
	if err != nil {
		t.Fatal(err)
	}
	kept := task.OutputFile("w", 2)
	if b, _ := os.ReadFile(kept); string(b) != big {
		t.Errorf("kept %d bytes, want %d", len(b), len(big))
	}
	if want := sessionfmt.CutText(big, sessionfmt.OutputLimit, ShownPath(task.WorkDir, kept)); text != want {
		t.Errorf("text ends %q, want %q", text[len(text)-80:], want[len(want)-80:])
	}
	text, err = task.KeepFile("w", 3, filepath.Join(t.TempDir(), "none.txt"))
	if text != "" || err == nil || !strings.Contains(err.Error(), "none.txt cannot be read") {
		t.Errorf("missing answer: %q, %v", text, err)
	}
	if _, err := os.Stat(task.OutputFile("w", 3)); !os.IsNotExist(err) {
		t.Errorf("missing answer got a kept file: %v", err)
	}
}

// TestKeepEmptyReplaces: an empty output leaves no file at its path, not
// even one an earlier writer left there; a Sink that is written nothing
// but empty writes creates none.
func TestKeepEmptyReplaces(t *testing.T) {
	task := newTask(t, 1)
	path := task.OutputFile("s", 1)
	if _, err := task.Keep("s", 1, "stale", nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "stale" {
		t.Fatalf("kept %q, %v", b, err)
	}
	if text, err := task.Keep("s", 1, "", nil); text != "" || err != nil {
		t.Fatalf("empty Keep: %q, %v", text, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the earlier file is still at %s: %v", path, err)
	}
	s := task.Sink("e", 1)
	s.Write(nil)
	s.WriteString("")
	if text, err := s.Close(nil); text != "" || err != nil {
		t.Fatalf("empty Sink: %q, %v", text, err)
	}
	if _, err := os.Stat(task.OutputFile("e", 1)); !os.IsNotExist(err) {
		t.Errorf("an empty Sink made a file: %v", err)
	}
}

// TestSink: an output written in pieces is kept whole in its file while
// the text is cut as Keep cuts it, and its index line counts every byte.
func TestSink(t *testing.T) {
	task := newTask(t, 1)
	s := task.Sink("long", 2)
	piece := strings.Repeat("0123456789abcdef", 4096) // 64 KiB
	for range 40 {
		if n, err := s.Write([]byte(piece)); n != len(piece) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	s.WriteString("end")
	text, err := s.Close(nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := strings.Repeat(piece, 40) + "end"
	kept := task.OutputFile("long", 2)
	if b, _ := os.ReadFile(kept); string(b) != whole {
		t.Errorf("kept %d bytes, want %d", len(b), len(whole))
	}
	if want := sessionfmt.CutText(whole, sessionfmt.OutputLimit, ShownPath(task.WorkDir, kept)); text != want {
		t.Errorf("text ends %q, want %q", text[len(text)-80:], want[len(want)-80:])
	}
	task.Close()
	index, _ := os.ReadFile(filepath.Join(task.Session.Dir, "outputs", "plan-1.index.jsonl"))
	if !strings.Contains(string(index), `"bytes":`+strconv.Itoa(len(whole))+`,`) {
		t.Errorf("index %s", index)
	}
}

// TestWholeOutput: a text within the limit is the whole output; a cut
// one is read back whole from its kept file; a kept file over 16 MiB, a
// missing one and one whose head is not the text's are errors that name
// the file.
func TestWholeOutput(t *testing.T) {
	task := newTask(t, 1)
	short, err := task.Keep("short", 1, "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := task.WholeOutput("short", 1, short); got != "hi" || err != nil {
		t.Errorf("short: %q, %v", got, err)
	}
	long := strings.Repeat("x", sessionfmt.OutputLimit) + "tail"
	cut, _ := task.Keep("long", 1, long, nil)
	if got, err := task.WholeOutput("long", 1, cut); got != long || err != nil {
		t.Errorf("long: %d bytes, %v", len(got), err)
	}
	shown := ShownPath(task.WorkDir, task.OutputFile("long", 1))
	// Asked for another attempt, which was never kept.
	if _, err := task.WholeOutput("long", 2, cut); err == nil || !strings.Contains(err.Error(), `step "long" cannot be read`) {
		t.Errorf("missing file: %v", err)
	}
	// The kept file no longer begins as the text did.
	os.WriteFile(task.OutputFile("long", 1), []byte(strings.Repeat("y", sessionfmt.OutputLimit+10)), 0o644)
	if _, err := task.WholeOutput("long", 1, cut); err == nil || !strings.Contains(err.Error(), shown) || !strings.Contains(err.Error(), "changed") {
		t.Errorf("changed file: %v", err)
	}
	// Over 16 MiB: the error names the size and the kept file.
	s := task.Sink("huge", 1)
	s.Write(make([]byte, ReferenceLimit+1))
	hugeCut, _ := s.Close(nil)
	_, err = task.WholeOutput("huge", 1, hugeCut)
	hugeShown := ShownPath(task.WorkDir, task.OutputFile("huge", 1))
	if err == nil || !strings.Contains(err.Error(), "is 16777217 bytes, over the 16 MiB") || !strings.Contains(err.Error(), "kept whole at "+hugeShown+":") {
		t.Errorf("over 16 MiB: %v", err)
	}
	// Exactly 16 MiB is read.
	s = task.Sink("edge", 1)
	s.Write(make([]byte, ReferenceLimit))
	edgeCut, _ := s.Close(nil)
	if got, err := task.WholeOutput("edge", 1, edgeCut); len(got) != ReferenceLimit || err != nil {
		t.Errorf("16 MiB: %d bytes, %v", len(got), err)
	}
}
