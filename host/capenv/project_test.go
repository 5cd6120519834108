package capenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
)

// TestLoadEmbedded: without --capsule and without a project the capsule
// is the embedded default, working in the current directory.
func TestLoadEmbedded(t *testing.T) {
	t.Chdir(t.TempDir())
	p, err := Load("", nil)
	if err != nil || p.Env == nil || p.Path != "" || !p.Found || p.WorkDir("") != "" || p.WorkDir("w") != "w" {
		t.Fatalf("Load: %+v, %v", p, err)
	}
	if !strings.HasPrefix(p.Describe(), "the embedded default (there is no ") {
		t.Errorf("Describe: %q", p.Describe())
	}
}

// TestLoadFoundUntrusted: a project's manifest found upward is refused
// until trusted, and once trusted its root is the work directory.
func TestLoadFoundUntrusted(t *testing.T) {
	t.Setenv("PLANC_TRUST_DIR", t.TempDir())
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	src := Starter("root")
	if err := WriteStarter(filepath.Join(root, ProjectFile), src); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "is not trusted") {
		t.Fatalf("an untrusted project manifest: %v", err)
	}
}

// TestLoadStdinAndMissing: --capsule - reads standard input; a missing
// --capsule file says how to fix it.
func TestLoadStdinAndMissing(t *testing.T) {
	p, err := Load(StdinName, strings.NewReader(string(Starter("x"))))
	if err != nil || p.Env == nil || p.Describe() != "the manifest on standard input (--capsule)" {
		t.Fatalf("stdin: %+v %v", p, err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json"), nil); err == nil || !strings.Contains(err.Error(), "name an existing manifest") {
		t.Errorf("a missing manifest: %v", err)
	}
}

// TestCheckPaths: a directory stands for its plan files; unreadable
// inputs are failures; each plan's diagnostics come back.
func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"id": "p", "steps": [{"id": "s", "tool": "nope", "input": {}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "capsule.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	p := &Project{Env: Default()}
	ds, failures, err := p.CheckPaths(context.Background(), nil, []string{dir, empty, filepath.Join(dir, "missing.json")})
	if err != nil {
		t.Fatal(err)
	}
	if len(failures) != 2 || !strings.Contains(failures[0], "holds no plan file") || !strings.Contains(failures[1], "missing.json") {
		t.Errorf("failures: %q", failures)
	}
	if len(ds) == 0 || ds[0].File == nil || ds[0].File.Name != filepath.Join(dir, "a.json") {
		t.Errorf("diagnostics: %+v", ds)
	}
}

// TestCheckFile: a plan is checked against the capsule; a refused one
// gives its diagnostics and no plan; an unreadable one is the error.
func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"id": "p", "steps": [{"id": "s", "tool": "notes", "input": {"body": "x"}}]}`), 0o644)
	os.WriteFile(bad, []byte(`{"id": "p", "steps": [{"id": "s", "tool": "nope", "input": {}}]}`), 0o644)
	p := &Project{Env: Default()}
	if plan, ds, err := p.CheckFile(context.Background(), nil, good); plan == nil || len(ds) != 0 || err != nil {
		t.Errorf("a good plan: %v %v %v", plan, ds, err)
	}
	if plan, ds, err := p.CheckFile(context.Background(), nil, bad); plan != nil || len(ds) == 0 || err != nil {
		t.Errorf("a refused plan: %v %v %v", plan, ds, err)
	}
	if _, _, err := p.CheckFile(context.Background(), nil, filepath.Join(dir, "none.json")); err == nil {
		t.Error("an unreadable plan: no error")
	}
	if err := (&MCPError{os.ErrClosed}); err.Error() != os.ErrClosed.Error() || !errors.Is(err, os.ErrClosed) {
		t.Errorf("MCPError: %v", err)
	}
}

// TestStarterNamesBuiltinTools: the tools section of the manifest planc
// init writes grants every built-in tool, and its comment names each one
// it grants.
func TestStarterNamesBuiltinTools(t *testing.T) {
	src := string(Starter("x"))
	i := strings.Index(src, `"tools": {`)
	if i < 0 {
		t.Fatalf("no tools section:\n%s", src)
	}
	comment, _, _ := strings.Cut(src[i:], "\n    \"builtin\"")
	for _, name := range ast.BuiltinTools() {
		if !strings.Contains(comment, name+",") && !strings.Contains(comment, name+")") {
			t.Errorf("the tools comment planc init writes does not name %q:\n%s", name, comment)
		}
		if !strings.Contains(src[i:], `"`+name+`"`) {
			t.Errorf("planc init does not grant %q", name)
		}
	}
}
