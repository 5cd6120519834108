package protect

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/planc/planc/ast"
)

func TestTool(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir)
	builtin, mcp, readOnly := ToolInfo{Builtin: true}, ToolInfo{}, ToolInfo{ReadOnlyHint: true}
	x := denied("src/x", "src")
	tests := []struct {
		tool  string
		input string
		info  ToolInfo
		want  outcome
	}{
		{"write-file", `{"path": "src/x", "content": "hi"}`, builtin, x},
		{"write-file", `{"path": "out/x", "content": "hi"}`, builtin, none},
		{"write-file", `{"path": "go.mod"}`, builtin, denied("go.mod", "go.mod")},
		{"write-file", `{"path": "src2/x"}`, builtin, none},
		{"write-file", `{"path": "src2/../src/x"}`, builtin, x},
		{"write-file", `{"path": "../` + filepath.Base(dir) + `/src/x"}`, builtin, x},
		{"write-file", `{"path": "` + dir + `/src/x"}`, builtin, x},
		{"write-file", `{"path": "/tmp/x"}`, builtin, none},
		{"write-file", `{"path": "link/x"}`, builtin, x},
		{"write-file", `{"path": "dangling"}`, builtin, denied("src/new", "src")},
		{"read-file", `{"path": "src/a.go"}`, builtin, none},
		{"repo-files", `{"glob": "src/**"}`, builtin, none},
		{"notes", `{"body": "src/a.go"}`, builtin, none},
		// MCP tools: checked unless annotated readOnlyHint
		{"write_file", `{"path": "src/x"}`, mcp, x},
		{"read_text_file", `{"path": "src/a.go"}`, readOnly, none},
		{"read_multiple_files", `{"paths": ["src/a.go", "go.mod"]}`, readOnly, none},
		{"edit", `{"paths": ["out/x", "src/x"]}`, mcp, x},
		{"move_file", `{"source": "src/a.go", "destination": "out/a.go"}`, mcp, denied("src/a.go", "src")},
		{"move_file", `{"source": "out/x", "destination": "src/x"}`, mcp, x},
		{"save", `{"file_path": "src/x"}`, mcp, x},
		{"save", `{"filePath": "src/x"}`, mcp, x},
		{"save", `{"Output-File": "src/x"}`, mcp, x},
		{"save", `{"target": "file://` + dir + `/src/x"}`, mcp, x},
		{"save", `{"content": "src/x", "name": "src/x"}`, mcp, none},
		{"save", `{"options": {"path": "src/x"}}`, mcp, x}, // nested members are read too
		{"save", `{"files": [{"name": "a", "path": "out/a"}, {"path": "src/x"}]}`, mcp, x},
		{"save", `{"destination_path": "src/x"}`, mcp, x},
		{"save", `{"configFile": "src/x"}`, mcp, x},
		{"copy", `{"from": "out/a", "to": "src/x"}`, mcp, x},
		{"copy", `{"src": "out/a", "dst": "src/x"}`, mcp, x},
		{"search", `{"query": "src", "pattern": "src/x", "options": {"text": "src/x"}}`, mcp, none}, // no path-named member
		{"save", `{"path": {"value": "src/x"}}`, mcp, none},                                         // an object under a path name: its members are read
		{"save", `{"path": 3, "paths": [1, null]}`, mcp, none},
		{"save", `["src/x"]`, mcp, none},
		{"save", `not json`, mcp, none},
		{"save", ``, mcp, none},
	}
	for _, tt := range tests {
		var in json.RawMessage
		if tt.input != "" {
			in = json.RawMessage(tt.input)
		}
		r := c.Tool(tt.tool, in, tt.info)
		if diff := cmp.Diff(tt.want, summarize(dir, r)); diff != "" {
			t.Errorf("Tool(%s, %s, %+v): (-want +got)\n%s", tt.tool, tt.input, tt.info, diff)
		}
	}
}

func TestHooks(t *testing.T) {
	dir := fixture(t)
	hooks := []ast.Hook{
		{On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny},
		{On: ast.HookOnShell, Match: "git push*", CommitPolicy: ast.CommitAllow},
		{On: ast.HookOnToolCall, Match: "write-*", CommitPolicy: ast.CommitDeny},
		{On: ast.HookOnToolCall, Match: "notes", CommitPolicy: ast.CommitAllow},
		{On: ast.HookOnShell, Match: "*--force*", CommitPolicy: ast.CommitDeny},
		{On: ast.HookOnShell, Match: "curl ?", CommitPolicy: ast.CommitDeny},
		{On: ast.HookOnShell, CommitPolicy: ast.CommitAllow},
		{On: ast.HookOnToolCall, Match: "fs_*_file", CommitPolicy: ast.CommitDeny},
	}
	for i := range hooks {
		hooks[i].Index = i
	}
	c := checker(t, dir, hooks...)
	shell := func(i int) outcome { return outcome{Kind: CallDenied, Hook: i, On: ast.HookOnShell} }
	tool := func(i int) outcome { return outcome{Kind: CallDenied, Hook: i, On: ast.HookOnToolCall} }
	shellTests := []struct {
		argv []string
		line string
		want outcome
	}{
		{[]string{"rm", "-rf", "build"}, "rm -rf build", shell(0)},
		{[]string{"rm", "-rf", "build"}, "", shell(0)},        // the line defaults to argv joined
		{[]string{"rm", "src/a.go"}, "rm src/a.go", shell(0)}, // hooks before read_only
		{[]string{"rmdir", "x"}, "rmdir x", none},
		{[]string{"echo", "rm", "x"}, "echo rm x", none},                   // the whole line must match
		{[]string{"bash", "-c", "rm x"}, "bash -c 'rm x'", shell(0)},       // each command of a script
		{[]string{"git", "push", "--force"}, "git push --force", shell(4)}, // allow cancels no deny
		{[]string{"git", "push"}, "git push", none},
		{[]string{"curl", "x"}, "curl x", shell(5)},
		{[]string{"curl", "xy"}, "curl xy", none},
		{[]string{"touch", "src/x"}, "touch src/x", denied("src/x", "src")},
	}
	for _, tt := range shellTests {
		if diff := cmp.Diff(tt.want, summarize(dir, c.Shell(tt.argv, tt.line))); diff != "" {
			t.Errorf("Shell(%q, %q): (-want +got)\n%s", tt.argv, tt.line, diff)
		}
	}
	toolTests := []struct {
		tool string
		want outcome
	}{
		{"write-file", tool(2)},
		{"notes", none},
		{"read-file", none},
		{"fs_write_file", tool(7)},
		{"fs_write_files", none},
		{"rm", none}, // on-shell hooks do not apply to tools
	}
	for _, tt := range toolTests {
		got := c.Tool(tt.tool, json.RawMessage(`{"path": "out/x"}`), ToolInfo{})
		if diff := cmp.Diff(tt.want, summarize(dir, got)); diff != "" {
			t.Errorf("Tool(%s): (-want +got)\n%s", tt.tool, diff)
		}
	}

	// A hook without match denies every call of its event.
	every := checker(t, dir, ast.Hook{Index: 3, On: ast.HookOnToolCall, CommitPolicy: ast.CommitDeny})
	if diff := cmp.Diff(tool(3), summarize(dir, every.Tool("read-file", nil, ToolInfo{Builtin: true}))); diff != "" {
		t.Errorf("hook without match: (-want +got)\n%s", diff)
	}
	if r := every.Shell([]string{"rm", "-rf", "out"}, ""); r != nil {
		t.Errorf("an on-tool-call hook refused a shell step: %v", r)
	}
}

func TestMessages(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir, ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	tests := []struct {
		got  *Refusal
		want string
	}{
		{c.Shell([]string{"rm", "-rf", "build"}, ""),
			`refused by hook 0 (on-shell, match "rm *", commit_policy deny): the command "rm -rf build" matches; change the command or the hook`},
		{c.Shell(bash("cd d && rm x"), ""),
			`refused by hook 0 (on-shell, match "rm *", commit_policy deny): the command "rm x", which "bash -c cd d && rm x" runs, matches; change the command or the hook`},
		{c.Tool("write-file", json.RawMessage(`{"path": "src/main.go"}`), ToolInfo{Builtin: true}),
			`refused: step writes "src/main.go" (input "path" of tool write-file), which is under capabilities.filesystem.read_only "src"; write elsewhere or remove the path from read_only`},
		{c.Shell(bash("echo hi > src/main.go"), ""),
			`refused: step writes "src/main.go" (redirection ">"), which is under capabilities.filesystem.read_only "src"; write elsewhere or remove the path from read_only`},
		{c.Shell([]string{"chmod", "-R", "go-w", "."}, ""),
			`refused: step writes "." and everything under it (chmod), which contains capabilities.filesystem.read_only "src"; narrow the path or remove "src" from read_only`},
		{c.Shell(bash("touch s*/new"), ""),
			`refused: step writes "s*/new" (touch), a pattern that can name a path under capabilities.filesystem.read_only "src"; write elsewhere or remove the path from read_only`},
		{c.Shell([]string{"tee", "link/x"}, ""),
			`refused: step writes "link/x" (tee), which resolves to "` + dir + `/src/x", under capabilities.filesystem.read_only "src"; write elsewhere or remove the path from read_only`},
		{c.Shell(bash("touch src/$f"), ""),
			`refused: step writes "src/$f" (touch), which is under capabilities.filesystem.read_only "src"; write elsewhere or remove the path from read_only`},
		{c.Shell(bash("cat out/x; if then go.mod"), ""),
			"refused: the script does not parse (1:12: `if` must be followed by a statement list) and its part from there on names \"go.mod\", which is under capabilities.filesystem.read_only \"go.mod\"; fix the script or remove the path from read_only"},
	}
	for i, tt := range tests {
		if tt.got == nil {
			t.Errorf("%d: not refused, want %q", i, tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, tt.got.Error()); diff != "" {
			t.Errorf("%d: message (-want +got)\n%s", i, diff)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"", "anything at all", true},
		{"*", "", true},
		{"rm *", "rm -rf /a b", true},
		{"rm *", "rmdir x", false},
		{"rm *", "rm", false},
		{"*rm *", "bash -c 'rm x'", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true},
		{"[ab]", "[ab]", true},
		{"[ab]", "a", false},
		{`a\*`, `a\b`, true},
		{"**", "a/b", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b", "a", false},
		{"write-file", "write-file", true},
		{"write-file", "write-files", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	dir := fixture(t)
	if _, err := New(Config{ReadOnly: []string{""}, WorkDir: dir}); err == nil {
		t.Error("New accepted an empty read_only path")
	}
	// read_only is relative to the manifest's directory, inputs to the
	// working directory.
	m := &ast.Manifest{
		Capabilities: ast.Capabilities{ReadOnly: []ast.NameAt{{Name: "../src"}}},
		Hooks:        []ast.Hook{{Index: 0, On: ast.HookOnShell, Match: "shutdown*", CommitPolicy: ast.CommitDeny}},
	}
	c, err := FromManifest(m, filepath.Join(dir, "out"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(denied("src/x", "../src"), summarize(dir, c.Shell([]string{"touch", "src/x"}, ""))); diff != "" {
		t.Errorf("FromManifest read_only: (-want +got)\n%s", diff)
	}
	if got := summarize(dir, c.Shell([]string{"shutdown", "now"}, "")); got.Kind != CallDenied {
		t.Errorf("FromManifest hooks: got %+v", got)
	}
	// Nothing protected, no hooks: nothing is refused.
	empty, err := New(Config{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r := empty.Shell([]string{"rm", "-rf", "/"}, ""); r != nil {
		t.Errorf("empty Checker refused: %v", r)
	}
	if got, want := ProtectedPath.String()+" "+CallDenied.String(), "protected_path_denied call_denied"; got != want {
		t.Errorf("Kind.String: %q, want %q", got, want)
	}
	if !(ToolInfo{}).Writes("x") || (ToolInfo{ReadOnlyHint: true}).Writes("x") ||
		!(ToolInfo{Builtin: true}).Writes("write-file") || (ToolInfo{Builtin: true}).Writes("notes") {
		t.Error("ToolInfo.Writes")
	}
	if keys := PathKeys(); !cmp.Equal(keys[:2], []string{"dest", "destination"}) {
		t.Errorf("PathKeys: %q", keys)
	}
}

// TestConcurrent shares one Checker between goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if c.Shell(bash("cd src && touch x"), "") == nil {
					t.Error("not refused")
				}
				if c.Tool("write-file", json.RawMessage(`{"path": "out/x"}`), ToolInfo{Builtin: true}) != nil {
					t.Error("refused")
				}
			}
		})
	}
	wg.Wait()
}
