//go:build unix

package protect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedCapsule: no step writes a path with a .planc component under
// the working directory — a capsule manifest a later planc run started
// there would find — by a tool's input, a shell word, a redirection or a
// pattern naming .planc; the built-in tools' Set refuses the opened
// directory's path too. A .planc outside the working directory, a name
// that only contains ".planc", and reading are not refused.
func TestPlantedCapsule(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir)
	for _, in := range []string{`{"path": "src2/.planc/capsule.json"}`, `{"path": "out/.planc"}`, `{"path": "` + dir + `/a/.planc/b/c"}`} {
		r := c.Tool("write-file", []byte(in), ToolInfo{Builtin: true})
		if r == nil || r.ReadOnly != ".planc" || !strings.Contains(r.Message, "a path with a .planc directory under the working directory") {
			t.Errorf("write-file %s: %+v", in, r)
		}
	}
	for _, argv := range [][]string{{"sh", "-c", "mkdir -p out/.planc && cp x out/.planc/capsule.json"}, {"sh", "-c", "echo {} > src2/.planc/capsule.json"},
		{"sh", "-c", "rm -rf */.planc"}, {"cp", "x", "src2/.planc/capsule.json"}} {
		if r := c.Shell(argv, strings.Join(argv, " ")); r == nil || r.ReadOnly != ".planc" {
			t.Errorf("%q: %+v", argv, r)
		}
	}
	for _, in := range []string{`{"path": "/tmp/x/.planc/capsule.json"}`, `{"path": "src2/x.planc"}`, `{"path": "src2/.plancx/y"}`} {
		if r := c.Tool("write-file", []byte(in), ToolInfo{Builtin: true}); r != nil {
			t.Errorf("write-file %s refused: %s", in, r.Message)
		}
	}
	if r := c.Shell(nil, "cat src2/.planc/capsule.json"); r != nil {
		t.Errorf("reading refused: %s", r.Message)
	}

	set := NewSet(nil, nil).WithRuntimeDirs(dir)
	if err := os.MkdirAll(filepath.Join(dir, "src2", ".planc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "src2", ".planc"), filepath.Join(dir, "innocent")); err != nil {
		t.Fatal(err)
	}
	var prot *ProtectedError
	if err := WriteFile(dir, "src2/.planc/capsule.json", []byte("{}"), 0o644, set); !errors.As(err, &prot) || prot.Protected != filepath.Join(dir, "src2", ".planc") {
		t.Errorf("write-file src2/.planc/capsule.json: %v", err)
	}
	if err := WriteFile(dir, "innocent/capsule.json", []byte("{}"), 0o644, set); err == nil {
		t.Error("write-file through a link to a .planc directory")
	}
	if _, err := os.Stat(filepath.Join(dir, "src2", ".planc", "capsule.json")); err == nil {
		t.Error("a capsule.json was planted")
	}
	if err := WriteFile(dir, "src2/ok.txt", []byte("ok"), 0o644, set); err != nil {
		t.Errorf("a plain file: %v", err)
	}
}
