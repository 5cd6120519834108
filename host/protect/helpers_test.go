package protect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
)

// fixture builds a working directory whose manifest protects "src" and
// "go.mod":
//
//	src/a.go src/sub/ src2/x out/x out/src/ go.mod
//	link -> src          linkfile -> src/a.go
//	dangling -> src/new  uplink -> src/sub (so uplink/.. is src)
//
// It returns the directory, with symbolic links followed (t.TempDir may
// lie under one).
func fixture(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"src/sub", "src2", "out/src"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"src/a.go", "src2/x", "out/x", "go.mod"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link": "src", "linkfile": "src/a.go", "dangling": filepath.Join(dir, "src/new"), "uplink": "src/sub",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checker returns the fixture's Checker with hooks.
func checker(t testing.TB, dir string, hooks ...ast.Hook) *Checker {
	t.Helper()
	c, err := New(Config{ReadOnly: []string{"src", "go.mod"}, BaseDir: dir, WorkDir: dir, Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// outcome is a Refusal as the tables spell it: Path relative to the
// fixture ("." for the fixture itself), "" when nothing is refused.
type outcome struct {
	Kind     Kind
	Path     string
	ReadOnly string
	Hook     int
	On       string
}

func summarize(dir string, r *Refusal) outcome {
	if r == nil {
		return outcome{}
	}
	p := r.Path
	if rel, ok := strings.CutPrefix(p, dir); ok {
		p = strings.TrimPrefix(rel, "/")
		if p == "" {
			p = "."
		}
	}
	return outcome{Kind: r.Kind, Path: p, ReadOnly: r.ReadOnly, Hook: r.Hook, On: r.On}
}

// denied is the outcome of a read_only refusal of path under root.
func denied(path, root string) outcome {
	return outcome{Kind: ProtectedPath, Path: path, ReadOnly: root, Hook: -1}
}

// bash is argv running script with bash -c.
func bash(script string) []string { return []string{"bash", "-c", script} }
