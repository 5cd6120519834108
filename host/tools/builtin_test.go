package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes files (with their directories) under dir.
func tree(t testing.TB, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRepoFiles(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, "go.mod", "a.go", "src/b.go", "src/x/c.go", "src/x/y/d.txt", "tests/t1.txt", "tests/deep/t2.txt",
		".git/config", "src/.git/HEAD", ".planc/sessions/s/trace.jsonl", "z/.planc/kept.go")
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"**", []string{"a.go", "go.mod", "src/b.go", "src/x/c.go", "src/x/y/d.txt", "tests/deep/t2.txt", "tests/t1.txt", "z/.planc/kept.go"}},
		{"**/*.go", []string{"a.go", "src/b.go", "src/x/c.go", "z/.planc/kept.go"}},
		{"src/**/*.go", []string{"src/b.go", "src/x/c.go"}},
		{"src/**", []string{"src/b.go", "src/x/c.go", "src/x/y/d.txt"}},
		{"tests/**", []string{"tests/deep/t2.txt", "tests/t1.txt"}},
		{"*.go", []string{"a.go"}},
		{"src/*/c.go", []string{"src/x/c.go"}},
		{"src/**/y/*", []string{"src/x/y/d.txt"}},
		{"go.mod", []string{"go.mod"}},
		{"nothing/**", nil},
		{"src/x", nil}, // a directory is not a file
	} {
		wantRepoFiles(t, dir, tc.glob, tc.want)
	}
	for _, bad := range []string{"", "/etc/*", "../x", "a/./b", "src/[", "a//b"} {
		if _, err := repoFiles(context.Background(), dir, bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestBuiltins(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, "in.txt", "src/a.go")
	b := &Builtins{WorkDir: dir, NotesPath: filepath.Join(dir, "notes.md"), Inputs: schemaInputs{}}
	call := func(tool, input string) (string, error) {
		var raw json.RawMessage
		if input != "" {
			raw = json.RawMessage(input)
		}
		return b.Call(context.Background(), tool, raw)
	}
	for _, tc := range []struct {
		tool, input, want, err string
	}{
		{tool: "repo-files", input: `{"glob": "**/*.go"}`, want: "src/a.go"},
		{tool: "read-file", input: `{"path": "in.txt"}`, want: "in.txt"},
		{tool: "write-file", input: `{"path": "out/new.txt", "content": "héllo"}`, want: "wrote 6 bytes to out/new.txt"},
		{tool: "read-file", input: `{"path": "out/new.txt"}`, want: "héllo"},
		{tool: "notes", input: `{"body": "first"}`, want: "appended 6 bytes to notes.md"},
		{tool: "notes", input: `{"body": null}`, want: "appended 1 byte to notes.md"},
		{tool: "notes", input: `{"body": "second\n"}`, want: "appended 7 bytes to notes.md"},
		{tool: "repo-files", input: `{"glob": "*", "limit": 3, "dir": "x"}`, err: `repo-files: unknown input field "dir", "limit"; the tool takes {"glob": "…"}`},
		{tool: "write-file", input: `{"path": "x"}`, err: `write-file: the input has no "content"; the tool takes {"path": "…", "content": "…"}`},
		{tool: "read-file", input: "", err: `read-file: the input has no "path"`},
		{tool: "read-file", input: `"in.txt"`, err: `read-file: the input must be an object, not a string; the tool takes {"path": "…"}`},
		{tool: "read-file", input: `{"path": 3}`, err: `read-file: "path" must be a string, not a number`},
		{tool: "read-file", input: `{"path": null}`, err: `read-file: "path" is null`},
		{tool: "read-file", input: `{"path": "missing.txt"}`, err: "read-file: open missing.txt: no such file or directory"},
		{tool: "repo-files", input: `{"glob": "../*"}`, err: `repo-files: the glob "../*" has an empty, "." or ".." segment`},
		{tool: "nope", input: `{}`, err: `"nope" is not a built-in tool`},
	} {
		got, err := call(tc.tool, tc.input)
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s %s: error %v, want %q…", tc.tool, tc.input, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s %s: %v", tc.tool, tc.input, err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%s %s: %q, want %q", tc.tool, tc.input, got, tc.want)
		}
	}
	notes, _ := os.ReadFile(b.NotesPath)
	if string(notes) != "first\n\nsecond\n" {
		t.Errorf("notes.md: %q", notes)
	}
	// write-file respects a read-only file, even as root.
	testNotesForms(t, b)
	ro := filepath.Join(dir, "ro.txt")
	tree(t, dir, "ro.txt")
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := call("write-file", `{"path": "ro.txt", "content": "x"}`); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("write-file on a read-only file: %v", err)
	}
	if b, _ := os.ReadFile(ro); string(b) != "ro.txt" {
		t.Errorf("the read-only file was changed: %q", b)
	}
}

// testNotesForms: notes takes every form of the plan format's examples
// (S31) — no input, {"body"}, any object of strings or null — and what
// its schema refuses, it refuses.
func testNotesForms(t *testing.T, b *Builtins) {
	t.Helper()
	if err := os.Remove(b.NotesPath); err != nil {
		t.Fatal(err)
	}
	ctx := WithStep(context.Background(), "release", "notify")
	for _, tc := range []struct{ input, want, err string }{
		{input: "", want: "appended 30 bytes to notes.md"},
		{input: `{}`, want: "appended 30 bytes to notes.md"},
		{input: `{"log": "line 1\nline 2", "exit": null, "body": "b"}`, want: "appended 34 bytes to notes.md"},
		{input: `{"log": "ok\n"}`, want: "appended 8 bytes to notes.md"},
		{input: `{"body": "as it is"}`, want: "appended 9 bytes to notes.md"},
		{input: `{"log": 3}`, err: `notes: "log" must be a string or null, not a number`},
		{input: `{"log": ["x"]}`, err: `notes: "log" must be a string or null, not a list`},
		{input: `"text"`, err: `notes: the input must be an object, not a string`},
	} {
		var raw json.RawMessage
		if tc.input != "" {
			raw = json.RawMessage(tc.input)
		}
		got, err := b.Call(ctx, "notes", raw)
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("notes %s: error %v, want %q…", tc.input, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("notes %s: %q, %v; want %q", tc.input, got, err, tc.want)
		}
	}
	notes, _ := os.ReadFile(b.NotesPath)
	want := "plan \"release\", step \"notify\"\n" +
		"plan \"release\", step \"notify\"\n" +
		"log: line 1\nline 2\nexit: \nbody: b\n" +
		"log: ok\n" +
		"as it is\n"
	if string(notes) != want {
		t.Errorf("notes.md:\n%s\nwant:\n%s", notes, want)
	}
}

// TestWriteFileReplaces: write-file leaves exactly the content given,
// whatever the file held: a longer file is cut to the new content (which
// is written over the old and the rest cut, not truncated first), a
// shorter one grows, and null or "" leaves it empty.
func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	b := &Builtins{WorkDir: dir, Inputs: schemaInputs{}}
	for _, content := range []string{"a long first content\nover two lines\n", "short", "", "grown again, longer than short", "x"} {
		in, _ := json.Marshal(map[string]string{"path": "f.txt", "content": content})
		if _, err := b.Call(context.Background(), "write-file", in); err != nil {
			t.Fatalf("write %q: %v", content, err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(got) != content {
			t.Fatalf("after writing %q the file holds %q (%v)", content, got, err)
		}
	}
	if _, err := b.Call(context.Background(), "write-file", json.RawMessage(`{"path": "f.txt", "content": null}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); len(got) != 0 {
		t.Errorf("after writing null the file holds %q", got)
	}
}
