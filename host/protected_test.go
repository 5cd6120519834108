package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/internal/trust"
)

// protectedWorld is a working directory with a capsule manifest, a roost,
// a read_only directory and an allowed command "tool" in bin/, first on
// PATH.
func protectedWorld(t *testing.T) (dir string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, dir,
		"capsule.json", `{"name": "local/p", "capabilities": {"plan": {"submit": true},
			"shell": {"allow": ["tool", "./local-tool", "linked", "missing"]}, "filesystem": {"read_only": ["ro"]}},
			"tools": {"builtin": ["write-file", "notes"]}}`,
		"ro/keep", "keep\n",
		"roost/local/w/capsule.json", `{"name": "local/w", "entrypoint": {"command": ["cat"]}}`,
		"bin/tool", "#!/bin/sh\necho tool\n",
		"local-tool", "#!/bin/sh\necho local\n")
	for _, f := range []string{"bin/tool", "local-tool"} {
		os.Chmod(filepath.Join(dir, f), 0o755)
	}
	if err := os.Symlink("tool", filepath.Join(dir, "bin", "linked")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// TestProtectedSet: the set holds the whole session directory, the
// working directory's .planc (its other sessions and capsule.json), the
// read_only paths, the roost, the --capsule manifest, the files the
// allowed words resolve to now (links followed), and what the spawning
// capsule protects; a word that resolves to nothing adds nothing.
func TestProtectedSet(t *testing.T) {
	dir := protectedWorld(t)
	t.Setenv(sandbox.EnvProtected, `["/parent/session"]`)
	record := filepath.Join(t.TempDir(), "trusted") // made by the set
	t.Setenv(trust.EnvDir, record)
	sess := filepath.Join(dir, ".planc", "sessions", "s1")
	s := newProtectedSet(protectedInput{
		m: manifest(t, readFile(t, filepath.Join(dir, "capsule.json"))), manifestDir: dir, manifestPath: filepath.Join(dir, "capsule.json"),
		workDir: dir, sessionDir: sess, roostDir: filepath.Join(dir, "roost"),
		runFiles: []capsule.RunFile{{Path: filepath.Join(dir, "tools", "deploy.sh"), Capsule: "local/w", What: "its command entrypoint"}},
	})
	want := []string{sess, filepath.Join(dir, ".planc"), filepath.Join(dir, "ro"), filepath.Join(dir, "roost"), filepath.Join(dir, "capsule.json"),
		filepath.Join(dir, "bin", "tool"), filepath.Join(dir, "local-tool"), filepath.Join(dir, "tools", "deploy.sh"), record, "/parent/session"}
	if fi, err := os.Stat(record); err != nil || !fi.IsDir() {
		t.Errorf("the trusted manifests' record was not made, so the kernel could not hold it: %v", err)
	}
	if what, _ := s.runtime(filepath.Join(dir, "tools", "deploy.sh")); what != "its command entrypoint of the sub-capsule local/w, fixed when the plan started" {
		t.Errorf("a sub-capsule's file: %q", what)
	}
	if !slices.Equal(s.paths, want) {
		t.Errorf("paths\n%q\nwant\n%q", s.paths, want)
	}
	if got := s.runtimePaths(); !slices.Equal(got, slices.Delete(slices.Clone(want), 2, 3)) {
		t.Errorf("runtime paths %q", got)
	}
	if _, ok := s.runtime(filepath.Join(dir, "ro")); ok {
		t.Error("a read_only entry counted as the runtime's")
	}
	if what, _ := s.runtime(filepath.Join(dir, "bin", "tool")); what != `the file the allowed command "tool" runs` {
		t.Errorf("what of bin/tool: %q", what)
	}
	for word, real := range map[string]string{"tool": "bin/tool", "linked": "bin/tool", "./local-tool": "local-tool"} {
		if b, ok := s.bins[word]; !ok || b.real != filepath.Join(dir, real) {
			t.Errorf("%s resolved to %+v", word, b)
		}
	}
	if _, ok := s.bins["missing"]; ok {
		t.Error("a word that resolves to nothing was resolved")
	}
}

// TestProtectedCommand: a step runs the very file its allowed word
// resolved to at plan start; a file put before it on PATH since, or in
// its place, refuses the step, and a word not resolved then is left to
// S14.
func TestProtectedCommand(t *testing.T) {
	dir := protectedWorld(t)
	s := newProtectedSet(protectedInput{m: manifest(t, readFile(t, filepath.Join(dir, "capsule.json"))), manifestDir: dir, workDir: dir})
	tool := filepath.Join(dir, "bin", "tool")
	if got, err := s.command("linked", dir); err != nil || got != tool {
		t.Errorf("linked: %q %v", got, err)
	}
	if got, err := s.command("missing", dir); err != nil || got != "" {
		t.Errorf("missing: %q %v", got, err)
	}
	// Something put first on PATH.
	early := filepath.Join(dir, "early")
	testkit.WriteFiles(t, early, "tool", "#!/bin/sh\necho evil\n")
	os.Chmod(filepath.Join(early, "tool"), 0o755)
	t.Setenv("PATH", early+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err := s.command("tool", dir)
	want := `refused: "tool" now resolves to ` + filepath.Join(early, "tool") + `, not to ` + tool + `, the file it ran when the plan started; ` +
		`planc runs only what an allowed command resolved to at plan start; remove ` + filepath.Join(early, "tool") + `, or start the plan again`
	if err == nil || err.Error() != want {
		t.Errorf("shadowed:\n%v\nwant\n%s", err, want)
	}
	// Another file renamed into its place.
	os.Remove(filepath.Join(early, "tool"))
	testkit.WriteFiles(t, dir, "bin/tool.new", "#!/bin/sh\necho evil\n")
	os.Chmod(filepath.Join(dir, "bin/tool.new"), 0o755)
	if err := os.Rename(filepath.Join(dir, "bin/tool.new"), tool); err != nil {
		t.Fatal(err)
	}
	if _, err := s.command("linked", dir); err == nil || !strings.Contains(err.Error(), "the file it ran when the plan started") {
		t.Errorf("replaced: %v", err)
	}
	os.Remove(tool)
	if _, err := s.command("tool", dir); err == nil || !strings.HasPrefix(err.Error(), `refused: "tool" resolves to no file now`) {
		t.Errorf("removed: %v", err)
	}
	var none *protectedSet
	if got, err := none.command("tool", dir); got != "" || err != nil {
		t.Errorf("nil set: %q %v", got, err)
	}
}

// TestProtectedToolSet: the built-in tools' Set refuses every protected
// path, notes.md included unless appended to as notes does, and the
// working directory's .planc (the project's capsule.json, another
// session).
func TestProtectedToolSet(t *testing.T) {
	dir := protectedWorld(t)
	sess := filepath.Join(dir, ".planc", "sessions", "s1")
	testkit.WriteFiles(t, sess, "trace.jsonl", "{}\n", "session.json", "{}\n", "notes.md", "")
	s := newProtectedSet(protectedInput{m: manifest(t, readFile(t, filepath.Join(dir, "capsule.json"))), manifestDir: dir,
		manifestPath: filepath.Join(dir, "capsule.json"), workDir: dir, sessionDir: sess, roostDir: filepath.Join(dir, "roost")})
	notes := filepath.Join(sess, sessionfmt.NotesFile)
	set := s.toolSet(notes)
	for _, p := range []string{"capsule.json", "roost/local/w/capsule.json", "roost/local/evil/capsule.json", "bin/tool", "local-tool",
		".planc/sessions/s1/trace.jsonl", ".planc/sessions/s1/session.json", ".planc/sessions/s1/notes.md", ".planc/sessions/s1/reports/x.json",
		".planc/capsule.json", ".planc/sessions/s0/trace.jsonl"} {
		var pe *protect.ProtectedError
		if err := protect.WriteFile(dir, p, []byte("pwned"), 0o644, set); !errors.As(err, &pe) {
			t.Errorf("write-file %s: %v", p, err)
		}
	}
	f, err := protect.OpenWrite(sess, sessionfmt.NotesFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644, set)
	if err != nil {
		t.Fatalf("notes: %v", err)
	}
	f.Close()
	if err := protect.WriteFile(dir, "bin/other", []byte("x"), 0o644, set); err != nil {
		t.Errorf("a file beside a protected binary: %v", err)
	}
}

// TestRunProtected: through Run, tool steps writing the roost, the
// capsule manifest, an allowed command's file and the session are
// refused before dispatch with what each path is, and change nothing;
// notes still appends; a shell step gets the protected set and runs the
// file its word resolved to at plan start.
func TestRunProtected(t *testing.T) {
	dir := protectedWorld(t)
	sess := filepath.Join(dir, "sess")
	m := manifest(t, readFile(t, filepath.Join(dir, "capsule.json")))
	sc := &specScope{fakeScope: newFakeScope()}
	plan := checked(t, m, `{"id": "p", "steps": [
		{"id": "roost", "tool": "write-file", "on_error": "continue", "input": {"path": "roost/local/evil/capsule.json", "content": "{}"}},
		{"id": "manifest", "tool": "write-file", "on_error": "continue", "input": {"path": "capsule.json", "content": "{}"}},
		{"id": "bin", "tool": "write-file", "on_error": "continue", "input": {"path": "bin/tool", "content": "pwned"}},
		{"id": "trace", "tool": "write-file", "on_error": "continue", "input": {"path": "sess/trace.jsonl", "content": "{}"}},
		{"id": "notes", "tool": "notes", "input": {"body": "kept"}},
		{"id": "run", "shell": "linked x"}
	]}`)
	res, err := Run(context.Background(), Config{Plan: plan, Env: capenv.New(m, capenv.Dir(dir), capenv.Path(filepath.Join(dir, "capsule.json"))),
		WorkDir: dir, SessionDir: sess, probe: func() error { return nil }, open: func(string) (shellScope, error) { return sc, nil }})
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]string{}
	for _, s := range res.Report.Steps {
		if s.Error != nil {
			errs[s.StepID] = *s.Error
		}
	}
	for id, what := range map[string]string{
		"roost":    `under "` + filepath.Join(dir, "roost") + `" (the roost, whose capsules a capsule step runs)`,
		"manifest": `(the capsule manifest the plan runs under)`,
		"bin":      `(the file the allowed command "tool" runs)`,
		"trace":    `under "` + sess + `" (the session directory: its plan files, trace and reports are planc's alone)`,
	} {
		if e := errs[id]; !strings.HasPrefix(e, "refused: step writes ") || !strings.Contains(e, what) {
			t.Errorf("%s: %q; want it to name %s", id, e, what)
		}
	}
	if n := strings.Count(strings.Join(traceEvents(t, filepath.Join(sess, sessionfmt.TraceFile)), " "), "protected_path_denied"); n != 4 {
		t.Errorf("%d protected_path_denied lines, want 4", n)
	}
	if b := readFile(t, filepath.Join(dir, "bin", "tool")); b != "#!/bin/sh\necho tool\n" {
		t.Errorf("bin/tool: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "roost", "local", "evil")); err == nil {
		t.Error("a roost entry was made")
	}
	if b := readFile(t, filepath.Join(sess, sessionfmt.NotesFile)); b != "kept\n" {
		t.Errorf("notes.md: %q", b)
	}
	sp := sc.last()
	if sp.Path != filepath.Join(dir, "bin", "tool") || !slices.Contains(sp.Protect, sess) || !slices.Contains(sp.Protect, filepath.Join(dir, "roost")) {
		t.Errorf("the shell step's spec: path %q, protect %q", sp.Path, sp.Protect)
	}
}

// specScope is a fakeScope that keeps the last Spec it ran.
type specScope struct {
	*fakeScope
	mu   sync.Mutex
	spec sandbox.Spec
}

func (s *specScope) Run(ctx context.Context, sp sandbox.Spec) sandbox.Result {
	s.mu.Lock()
	s.spec = sp
	s.mu.Unlock()
	return s.fakeScope.Run(ctx, sp)
}

func (s *specScope) last() sandbox.Spec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spec
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkProtectedCommand is what the check of an allowed command adds
// to each shell step's dispatch: resolving its word again, following its
// links and comparing the file with the one of plan start.
func BenchmarkProtectedCommand(b *testing.B) {
	m := testkit.Manifest(b, `{"name": "local/b", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["true"]}}}`)
	dir := b.TempDir()
	s := newProtectedSet(protectedInput{m: m, manifestDir: dir, workDir: dir})
	if _, ok := s.bins["true"]; !ok {
		b.Skip("no true on PATH")
	}
	for b.Loop() {
		if _, err := s.command("true", dir); err != nil {
			b.Fatal(err)
		}
	}
}
