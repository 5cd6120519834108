package parser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/planc/planc/ast"
)

// fullManifest is a manifest with every field (docs/manifest.md).
const fullManifest = `{
  "name": "local/planner",
  "version": "0.1.0",
  "capabilities": {
    "plan":       {"submit": true},
    "shell":      {"allow": ["bash", "go", "cargo"], "timeout": "10m"},
    "spawn":      {"allow": ["local/worker"]},
    "filesystem": {"read_only": ["src", "go.mod"]}
  },
  "tools":  {"builtin": ["repo-files", "notes", "read-file", "write-file"],
             "mcp": {"fs": {"command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."]}}},
  "hooks":  [{"on": "on-shell", "match": "rm *", "commit_policy": "deny"}],
  "entrypoint": {"plan": "worker-plan.json"}
}`

func names(ns ...string) []ast.NameAt {
	out := make([]ast.NameAt, len(ns))
	for i, n := range ns {
		out[i] = ast.NameAt{Name: n}
	}
	return out
}

var ignoreSpans = cmpopts.IgnoreTypes(ast.Span{})

func TestParseManifestFull(t *testing.T) {
	m, ds := ParseManifest([]byte(fullManifest), DefaultLimits())
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := &ast.Manifest{
		Name:    "local/planner",
		Version: "0.1.0",
		Capabilities: ast.Capabilities{
			PlanSubmit:   true,
			ShellAllow:   names("bash", "go", "cargo"),
			ShellTimeout: &ast.DurationAt{D: 10 * time.Minute, Raw: "10m"},
			SpawnAllow:   names("local/worker"),
			ReadOnly:     names("src", "go.mod"),
		},
		Tools: ast.Tools{
			Builtin: names("repo-files", "notes", "read-file", "write-file"),
			MCP:     []ast.MCPServer{{Name: "fs", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}}},
		},
		Hooks:      []ast.Hook{{Index: 0, On: "on-shell", Match: "rm *", CommitPolicy: "deny"}},
		Entrypoint: &ast.Entrypoint{Plan: "worker-plan.json"},
	}
	if d := cmp.Diff(want, m, ignoreSpans); d != "" {
		t.Errorf("manifest (-want +got):\n%s", d)
	}
	spans := map[string]ast.Span{
		"manifest":           m.Span,
		"name":               m.NameSpan,
		"version":            m.VersionSpan,
		"capabilities":       m.Capabilities.Span,
		"plan.submit":        m.Capabilities.PlanSubmitSpan,
		"shell.allow":        m.Capabilities.ShellAllowSpan,
		"shell.allow[2]":     m.Capabilities.ShellAllow[2].Span,
		"shell.timeout":      m.Capabilities.ShellTimeout.Span,
		"spawn.allow":        m.Capabilities.SpawnAllowSpan,
		"spawn.allow[0]":     m.Capabilities.SpawnAllow[0].Span,
		"read_only[1]":       m.Capabilities.ReadOnly[1].Span,
		"tools":              m.Tools.Span,
		"tools.builtin[1]":   m.Tools.Builtin[1].Span,
		"tools.mcp":          m.Tools.MCPSpan,
		"mcp.fs name":        m.Tools.MCP[0].NameSpan,
		"mcp.fs":             m.Tools.MCP[0].Span,
		"mcp.fs.command":     m.Tools.MCP[0].CommandSpan,
		"hooks":              m.HooksSpan,
		"hooks[0]":           m.Hooks[0].Span,
		"hooks[0].on":        m.Hooks[0].OnSpan,
		"hooks[0].match":     m.Hooks[0].MatchSpan,
		"hooks[0].policy":    m.Hooks[0].CommitPolicySpan,
		"entrypoint":         m.Entrypoint.Span,
		"entrypoint.plan":    m.Entrypoint.PlanSpan,
		"entrypoint.command": m.Entrypoint.CommandSpan,
	}
	got := map[string]string{}
	for k, sp := range spans {
		got[k] = sp.String()
	}
	wantSpans := map[string]string{
		"manifest":           "1:1-14:2",
		"name":               "2:11-2:26",
		"version":            "3:14-3:21",
		"capabilities":       "4:19-9:4",
		"plan.submit":        "5:30-5:34",
		"shell.allow":        "6:29-6:52",
		"shell.allow[2]":     "6:44-6:51",
		"shell.timeout":      "6:65-6:70",
		"spawn.allow":        "7:29-7:45",
		"spawn.allow[0]":     "7:30-7:44",
		"read_only[1]":       "8:41-8:49",
		"tools":              "10:13-11:104",
		"tools.builtin[1]":   "10:40-10:47",
		"tools.mcp":          "11:21-11:103",
		"mcp.fs name":        "11:22-11:26",
		"mcp.fs":             "11:28-11:102",
		"mcp.fs.command":     "11:40-11:101",
		"hooks":              "12:13-12:75",
		"hooks[0]":           "12:14-12:74",
		"hooks[0].on":        "12:21-12:31",
		"hooks[0].match":     "12:42-12:48",
		"hooks[0].policy":    "12:67-12:73",
		"entrypoint":         "13:17-13:45",
		"entrypoint.plan":    "13:26-13:44",
		"entrypoint.command": "0:0-0:0",
	}
	if d := cmp.Diff(wantSpans, got); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
}

func TestParseManifestDefaults(t *testing.T) {
	m, ds := ParseManifest([]byte(`{"name": "local/x", "version": null, "capabilities": {"shell": {"allow": []}}}`), DefaultLimits())
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := &ast.Manifest{Name: "local/x", Version: ast.DefaultManifestVersion, Capabilities: ast.Capabilities{ShellAllow: []ast.NameAt{}}}
	if d := cmp.Diff(want, m, ignoreSpans); d != "" {
		t.Errorf("manifest (-want +got):\n%s", d)
	}
	if m.VersionSpan.IsValid() || m.Capabilities.ShellTimeout != nil || m.Entrypoint != nil {
		t.Errorf("defaulted fields carry a position or a value: %+v", m)
	}
}

// diagLines formats diagnostics as "line:col code: message [suggestion]".
func diagLines(ds []ast.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		s := fmt.Sprintf("%s %s: %s", d.Span.Start, d.Code, d.Message)
		if d.Suggestion != "" {
			s += " [" + d.Suggestion + "]"
		}
		out = append(out, s)
	}
	return out
}

func TestParseManifestEntrypointCommand(t *testing.T) {
	m, ds := ParseManifest([]byte(`{"name": "local/w", "entrypoint": {"command": ["./answer", "--fast"]}}`), DefaultLimits())
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := &ast.Entrypoint{Command: []string{"./answer", "--fast"}}
	if d := cmp.Diff(want, m.Entrypoint, ignoreSpans); d != "" {
		t.Errorf("entrypoint (-want +got):\n%s", d)
	}
}

// FuzzParseManifest checks that no input panics, that diagnostics lie inside
// the input and come sorted, that a nil manifest comes with an error, and
// that a manifest without errors parses the same again: from the same bytes,
// and from its canonical re-encoding.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(fullManifest))
	for _, tc := range append(refusalCases, envRefusalCases...) {
		f.Add([]byte(tc.src))
	}
	f.Add([]byte(envManifest))
	lim := Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxSteps: 100}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, ds := ParseManifest(src, lim)
		if m == nil && !ast.HasErrors(ds) {
			t.Fatalf("nil manifest without an error")
		}
		for i, d := range ds {
			s, e := d.Span.Start, d.Span.End
			if !s.IsValid() || s.Offset > e.Offset || int(e.Offset) > len(src) || d.Message == "" || d.Code == "" {
				t.Fatalf("bad diagnostic %+v for %d bytes", d, len(src))
			}
			if i > 0 && ds[i-1].Span.Start.Offset > s.Offset {
				t.Fatalf("diagnostics not sorted: %v", ds)
			}
		}
		m2, ds2 := ParseManifest(src, lim)
		if d := cmp.Diff(m, m2); d != "" || !cmp.Equal(ds, ds2) {
			t.Fatalf("second parse differs: %s", d)
		}
		if m == nil || ast.HasErrors(ds) {
			return
		}
		enc := encodeManifest(m)
		m3, ds3 := ParseManifest(enc, lim)
		if len(ds3) != 0 {
			t.Fatalf("re-encoded manifest refused: %v\n%s", ds3, enc)
		}
		if d := cmp.Diff(m, m3, ignoreSpans); d != "" {
			t.Fatalf("re-encoded manifest differs (-first +again):\n%s\n%s", d, enc)
		}
		if enc2 := encodeManifest(m3); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", enc, enc2)
		}
	})
}

// encodeManifest writes m back as canonical JSON: fields in a fixed order,
// a section only when the source had it.
func encodeManifest(m *ast.Manifest) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	list := func(ss []string) string {
		qs := make([]string, len(ss))
		for i, s := range ss {
			qs[i] = q(s)
		}
		return "[" + strings.Join(qs, ",") + "]"
	}
	obj := func(parts []string) string { return "{" + strings.Join(parts, ",") + "}" }
	var root, caps, tools []string
	root = append(root, `"name":`+q(m.Name))
	if m.VersionSpan.IsValid() {
		root = append(root, `"version":`+q(m.Version))
	}
	c := m.Capabilities
	if c.PlanSubmitSpan.IsValid() {
		caps = append(caps, fmt.Sprintf(`"plan":{"submit":%t}`, c.PlanSubmit))
	}
	var shell []string
	if c.ShellAllowSpan.IsValid() {
		shell = append(shell, `"allow":`+list(ast.Names(c.ShellAllow)))
	}
	if c.ShellTimeout != nil {
		shell = append(shell, `"timeout":`+q(c.ShellTimeout.Raw))
	}
	env := func(vars []ast.EnvVar) string {
		var kv []string
		for _, v := range vars {
			kv = append(kv, q(v.Name)+":"+q(v.Value))
		}
		return obj(kv)
	}
	if c.ShellEnvSpan.IsValid() {
		shell = append(shell, `"env":`+env(c.ShellEnv))
	}
	if shell != nil {
		caps = append(caps, `"shell":`+obj(shell))
	}
	if c.SpawnAllowSpan.IsValid() {
		caps = append(caps, `"spawn":{"allow":`+list(ast.Names(c.SpawnAllow))+"}")
	}
	if c.ReadOnlySpan.IsValid() {
		caps = append(caps, `"filesystem":{"read_only":`+list(ast.Names(c.ReadOnly))+"}")
	}
	if c.Span.IsValid() {
		root = append(root, `"capabilities":`+obj(caps))
	}
	if m.Tools.BuiltinSpan.IsValid() {
		tools = append(tools, `"builtin":`+list(ast.Names(m.Tools.Builtin)))
	}
	if m.Tools.MCPSpan.IsValid() {
		var srv []string
		for _, s := range m.Tools.MCP {
			e := ""
			if s.EnvSpan.IsValid() {
				e = `,"env":` + env(s.Env)
			}
			srv = append(srv, q(s.Name)+`:{"command":`+list(s.Command)+e+"}")
		}
		tools = append(tools, `"mcp":`+obj(srv))
	}
	if m.Tools.Span.IsValid() {
		root = append(root, `"tools":`+obj(tools))
	}
	if m.HooksSpan.IsValid() {
		var hs []string
		for _, h := range m.Hooks {
			parts := []string{`"on":` + q(h.On), `"commit_policy":` + q(h.CommitPolicy)}
			if h.MatchSpan.IsValid() {
				parts = append(parts, `"match":`+q(h.Match))
			}
			hs = append(hs, obj(parts))
		}
		root = append(root, `"hooks":[`+strings.Join(hs, ",")+"]")
	}
	if e := m.Entrypoint; e != nil && e.Command != nil {
		root = append(root, `"entrypoint":{"command":`+list(e.Command)+"}")
	} else if e != nil {
		root = append(root, `"entrypoint":{"plan":`+q(e.Plan)+"}")
	}
	return []byte(obj(root))
}

// refusalCases are manifests with their diagnostics, as diagLines formats
// them. The name "local/a" keeps the missing-name refusal out of the way.
var refusalCases = []struct {
	name string
	src  string
	want []string
}{
	{"not an object", `["local/a"]`, []string{"1:1 not-an-object: a capsule manifest is one JSON object, not a list; write {\"name\": \"local/<capsule>\", …}"}},
	{"json syntax", `{"name": "local/a",}`, []string{"1:20 json-syntax: trailing comma before \"}\"; remove the comma"}},
	{"duplicate key", `{"name": "local/a", "name": "local/b"}`, []string{"1:21 duplicate-key: duplicate key \"name\" (first at 1:2); JSON with duplicate keys has no single meaning, keep one"}},
	{"unknown root field", `{"name": "local/a", "nmae": "x"}`, []string{"1:21 manifest-unknown-field: unknown field \"nmae\" in the manifest; did you mean \"name\"? [name]"}},
	{"unknown shell field", `{"name": "local/a", "capabilities": {"shell": {"alow": ["bash"]}}}`, []string{"1:48 manifest-unknown-field: unknown field \"alow\" in capabilities.shell; did you mean \"allow\"? [allow]"}},
	{"unknown field no suggestion", `{"name": "local/a", "capabilities": {"plan": {"zzz": 1}}}`, []string{"1:47 manifest-unknown-field: unknown field \"zzz\" in capabilities.plan; capabilities.plan has only \"submit\""}},
	{"misplaced at root", `{"name": "local/a", "shell": {"allow": []}}`, []string{"1:21 manifest-unknown-field: unknown field \"shell\" in the manifest; it belongs in capabilities, move it there"}},
	{"misplaced in capabilities", `{"name": "local/a", "capabilities": {"timeout": "1m"}}`, []string{"1:38 manifest-unknown-field: unknown field \"timeout\" in capabilities; it belongs in capabilities.shell, move it there"}},
	{"comment not a string", `{"name": "local/a", "$comment": ["x"]}`, []string{"1:33 manifest-wrong-type: $comment must be a string, not a list; write the comment as one string"}},
	{"comment in shell not a string", `{"name": "local/a", "capabilities": {"shell": {"$comment": 1}}}`, []string{"1:60 manifest-wrong-type: capabilities.shell.$comment must be a string, not a number; write the comment as one string"}},
	{"comment in mcp is a server", `{"name": "local/a", "tools": {"mcp": {"$comment": "x"}}}`, []string{"1:51 manifest-wrong-type: tools.mcp[\"$comment\"] must be an object, not a string; write \"$comment\": {\"command\": [\"<binary>\", \"<argument>\"]}"}},
	{"missing name", `{"version": "1.0.0"}`, []string{"1:1 manifest-missing-field: the manifest has no \"name\"; add \"name\": \"local/<capsule>\""}},
	{"null name", `{"name": null}`, []string{"1:1 manifest-missing-field: the manifest has no \"name\"; add \"name\": \"local/<capsule>\""}},
	{"name wrong type", `{"name": 7}`, []string{"1:10 manifest-wrong-type: name must be a string, not a number; write \"name\": \"local/<capsule>\""}},
	{"name without namespace", `{"name": "planner"}`, []string{"1:10 manifest-bad-value: name \"planner\" has no namespace; write it as \"local/planner\" [local/planner]"}},
	{"name not a capsule name", `{"name": "a/b/c"}`, []string{"1:10 manifest-bad-value: name \"a/b/c\" is not a capsule name; write namespace/name, as in \"local/worker\", each part letters, digits, \"_\", \"-\" or \".\" and not starting with \".\" or \"-\""}},
	{"name hidden part", `{"name": "../x"}`, []string{"1:10 manifest-bad-value: name \"../x\" is not a capsule name; write namespace/name, as in \"local/worker\", each part letters, digits, \"_\", \"-\" or \".\" and not starting with \".\" or \"-\""}},
	{"version with v", `{"name": "local/a", "version": "v1.2.3"}`, []string{"1:32 manifest-bad-value: version \"v1.2.3\" is not of the form x.y.z; write it as \"1.2.3\" [1.2.3]"}},
	{"version two parts", `{"name": "local/a", "version": "1.2"}`, []string{"1:32 manifest-bad-value: version \"1.2\" is not of the form x.y.z; write it as \"1.2.0\" [1.2.0]"}},
	{"version word", `{"name": "local/a", "version": "latest"}`, []string{"1:32 manifest-bad-value: version \"latest\" is not of the form x.y.z; write three numbers such as \"0.1.0\""}},
	{"version leading zero", `{"name": "local/a", "version": "01.2.3"}`, []string{"1:32 manifest-bad-value: version \"01.2.3\" is not of the form x.y.z; write three numbers such as \"0.1.0\""}},
	{"version number", `{"name": "local/a", "version": 1}`, []string{"1:32 manifest-wrong-type: version must be a string, not a number; write \"version\": \"0.1.0\""}},
	{"capabilities list", `{"name": "local/a", "capabilities": []}`, []string{"1:37 manifest-wrong-type: capabilities must be an object, not a list; write \"capabilities\": {\"shell\": {\"allow\": [\"bash\"]}}"}},
	{"submit string", `{"name": "local/a", "capabilities": {"plan": {"submit": "true"}}}`, []string{"1:57 manifest-wrong-type: capabilities.plan.submit must be a boolean, not a string; write true or false without quotes"}},
	{"submit number", `{"name": "local/a", "capabilities": {"plan": {"submit": 1}}}`, []string{"1:57 manifest-wrong-type: capabilities.plan.submit must be a boolean, not a number; write \"submit\": true"}},
	{"allow string", `{"name": "local/a", "capabilities": {"shell": {"allow": "bash"}}}`, []string{"1:57 manifest-wrong-type: capabilities.shell.allow must be a list of strings, not a string; write it as a list: [\"bash\"]"}},
	{"allow entries", `{"name": "local/a", "capabilities": {"shell": {"allow": ["bash", 5, "", "go test", " "]}}}`, []string{
		"1:66 manifest-wrong-type: capabilities.shell.allow[1] must be a string, not a number; quote it, or remove it",
		"1:69 manifest-bad-value: capabilities.shell.allow[2] is empty; write a binary name such as \"bash\", or remove it",
		"1:73 manifest-bad-value: capabilities.shell.allow[3] \"go test\" is not one binary name; list the binary alone, as in \"go\" [go]",
		"1:84 manifest-bad-value: capabilities.shell.allow[4] \" \" is not one binary name; remove the white space",
	}},
	{"timeout words", `{"name": "local/a", "capabilities": {"shell": {"timeout": "10 minutes"}}}`, []string{"1:59 manifest-bad-value: capabilities.shell.timeout \"10 minutes\" is not a duration; write a Go duration such as \"10m\", \"90s\" or \"1h30m\""}},
	{"timeout no unit", `{"name": "local/a", "capabilities": {"shell": {"timeout": "600"}}}`, []string{"1:59 manifest-bad-value: capabilities.shell.timeout \"600\" has no unit; write it with one, as in \"600s\" [600s]"}},
	{"timeout number", `{"name": "local/a", "capabilities": {"shell": {"timeout": 600}}}`, []string{"1:59 manifest-wrong-type: capabilities.shell.timeout must be a string, not a number; write it as a string with a unit, as in \"600s\""}},
	{"timeout zero", `{"name": "local/a", "capabilities": {"shell": {"timeout": "0s"}}}`, []string{"1:59 manifest-bad-value: capabilities.shell.timeout \"0s\" is not positive; write a duration above zero, such as \"10m\""}},
	{"timeout negative", `{"name": "local/a", "capabilities": {"shell": {"timeout": "-1m"}}}`, []string{"1:59 manifest-bad-value: capabilities.shell.timeout \"-1m\" is not positive; write a duration above zero, such as \"10m\""}},
	{"spawn bare", `{"name": "local/a", "capabilities": {"spawn": {"allow": ["worker", "local/"]}}}`, []string{
		"1:58 manifest-bad-value: capabilities.spawn.allow[0] \"worker\" has no namespace; write it as \"local/worker\" [local/worker]",
		"1:68 manifest-bad-value: capabilities.spawn.allow[1] \"local/\" is not a capsule name; write namespace/name, as in \"local/worker\", each part letters, digits, \"_\", \"-\" or \".\" and not starting with \".\" or \"-\"",
	}},
	{"read_only empty", `{"name": "local/a", "capabilities": {"filesystem": {"read_only": ["", "a\u0000b"]}}}`, []string{
		"1:67 manifest-bad-value: capabilities.filesystem.read_only[0] is empty; write a path relative to the manifest's directory, or \".\" for all of it",
		"1:71 manifest-bad-value: capabilities.filesystem.read_only[1] holds a NUL byte; remove it",
	}},
	{"builtin typo", `{"name": "local/a", "tools": {"builtin": ["read-fil", "submit-plan", "bogus"]}}`, []string{
		"1:43 manifest-bad-value: tools.builtin[0] \"read-fil\" is not a built-in tool; did you mean \"read-file\"? [read-file]",
		"1:55 manifest-bad-value: tools.builtin[1] \"submit-plan\" is not a built-in tool; grant it with \"capabilities\": {\"plan\": {\"submit\": true}}",
		"1:70 manifest-bad-value: tools.builtin[2] \"bogus\" is not a built-in tool; use one of \"compose\", \"notes\", \"read-file\", \"repo-files\" or \"write-file\"",
	}},
	{"mcp list", `{"name": "local/a", "tools": {"mcp": []}}`, []string{"1:38 manifest-wrong-type: tools.mcp must be an object, not a list; write \"mcp\": {\"fs\": {\"command\": [\"<binary>\", \"<argument>\"]}}"}},
	{"mcp server", `{"name": "local/a", "tools": {"mcp": {"": {}, "a": [], "b": {}, "c": {"comand": []}}}}`, []string{
		"1:39 manifest-bad-value: tools.mcp has a server with an empty name; name it, as in \"fs\"",
		"1:52 manifest-wrong-type: tools.mcp.a must be an object, not a list; write \"a\": {\"command\": [\"<binary>\", \"<argument>\"]}",
		"1:56 manifest-missing-field: tools.mcp.b has no \"command\"; add \"command\": [\"<binary>\", \"<argument>\"]",
		"1:65 manifest-missing-field: tools.mcp.c has no \"command\"; add \"command\": [\"<binary>\", \"<argument>\"]",
		"1:71 manifest-unknown-field: unknown field \"comand\" in tools.mcp.c; did you mean \"command\"? [command]",
	}},
	{"mcp command", `{"name": "local/a", "tools": {"mcp": {"a": {"command": []}, "b": {"command": "npx -y srv"}, "c": {"command": ["npx", ""]}}}}`, []string{
		"1:56 manifest-bad-value: tools.mcp.a.command is empty; list the binary and its arguments, as in [\"npx\", \"-y\", \"<package>\"]",
		"1:78 manifest-wrong-type: tools.mcp.b.command must be a list of strings, not a string; write it as a list: [\"npx\", \"-y\", \"srv\"]",
		"1:118 manifest-bad-value: tools.mcp.c.command[1] is empty; write the word or remove it",
	}},
	{"hooks object", `{"name": "local/a", "hooks": {}}`, []string{"1:30 manifest-wrong-type: hooks must be a list of hook objects, not an object; write \"hooks\": [{\"on\": \"on-shell\", \"match\": \"rm *\", \"commit_policy\": \"deny\"}]"}},
	{"hook string", `{"name": "local/a", "hooks": ["deny rm"]}`, []string{"1:31 manifest-wrong-type: hooks[0] must be an object, not a string; write {\"on\": \"on-shell\", \"match\": \"rm *\", \"commit_policy\": \"deny\"}"}},
	{"hook missing", `{"name": "local/a", "hooks": [{"match": "rm *"}]}`, []string{
		"1:31 manifest-missing-field: hooks[0] has no \"commit_policy\"; add \"commit_policy\": \"deny\" to refuse the calls it matches",
		"1:31 manifest-missing-field: hooks[0] has no \"on\"; add \"on\": \"on-tool-call\" or \"on\": \"on-shell\"",
	}},
	{"hook on", `{"name": "local/a", "hooks": [{"on": "on-shel", "commit_policy": "deny"}, {"on": "shell", "commit_policy": "deny"}, {"on": "exec", "commit_policy": "deny"}]}`, []string{
		"1:38 manifest-bad-value: hooks[0].on \"on-shel\" is not an event; did you mean \"on-shell\"? [on-shell]",
		"1:82 manifest-bad-value: hooks[1].on \"shell\" is not an event; did you mean \"on-shell\"? [on-shell]",
		"1:124 manifest-bad-value: hooks[2].on \"exec\" is not an event; use \"on-tool-call\" or \"on-shell\"",
	}},
	{"hook policy", `{"name": "local/a", "hooks": [{"on": "on-shell", "commit_policy": "denied"}, {"on": "on-shell", "commit_policy": "block"}]}`, []string{
		"1:67 manifest-bad-value: hooks[0].commit_policy \"denied\" is not a commit policy; use \"deny\" or \"allow\"",
		"1:114 manifest-bad-value: hooks[1].commit_policy \"block\" is not a commit policy; use \"deny\" or \"allow\"",
	}},
	{"hook match", `{"name": "local/a", "hooks": [{"on": "on-shell", "match": "", "commit_policy": "deny"}, {"on": "on-shell", "match": 1, "commit_policy": "deny"}]}`, []string{
		"1:59 manifest-bad-value: hooks[0].match is empty; remove it to match every call, or write a glob such as \"rm *\"",
		"1:117 manifest-wrong-type: hooks[1].match must be a string, not a number; write \"match\": \"rm *\"",
	}},
	{"entrypoint empty", `{"name": "local/a", "entrypoint": {}}`, []string{"1:35 manifest-missing-field: entrypoint has neither \"plan\" nor \"command\"; add \"plan\": \"<plan file>\" or \"command\": [\"<binary>\"]"}},
	{"entrypoint both", `{"name": "local/a", "entrypoint": {"command": ["x"], "plan": "p.json"}}`, []string{"1:54 manifest-bad-value: entrypoint has both \"plan\" and \"command\"; keep one"}},
	{"entrypoint values", `{"name": "local/a", "entrypoint": {"plan": ""}}`, []string{"1:44 manifest-bad-value: entrypoint.plan is empty; write the path of the plan file, relative to the manifest's directory (e.g. \"plan.json\")"}},
	{"entrypoint string", `{"name": "local/a", "entrypoint": "p.json"}`, []string{"1:35 manifest-wrong-type: entrypoint must be an object, not a string; write \"entrypoint\": {\"plan\": \"<plan file>\"}"}},
	{"all at once", "{\n  \"nam\": \"local/a\",\n  \"capabilities\": {\"shell\": {\"alow\": [\"bash\"], \"timeout\": \"soon\"}},\n  \"hooks\": [{\"on\": \"on-shel\"}]\n}", []string{
		"1:1 manifest-missing-field: the manifest has no \"name\"; add \"name\": \"local/<capsule>\"",
		"2:3 manifest-unknown-field: unknown field \"nam\" in the manifest; did you mean \"name\"? [name]",
		"3:30 manifest-unknown-field: unknown field \"alow\" in capabilities.shell; did you mean \"allow\"? [allow]",
		"3:59 manifest-bad-value: capabilities.shell.timeout \"soon\" is not a duration; write a Go duration such as \"10m\", \"90s\" or \"1h30m\"",
		"4:13 manifest-missing-field: hooks[0] has no \"commit_policy\"; add \"commit_policy\": \"deny\" to refuse the calls it matches",
		"4:20 manifest-bad-value: hooks[0].on \"on-shel\" is not an event; did you mean \"on-shell\"? [on-shell]",
	}},
}

func TestParseManifestRefusals(t *testing.T) {
	for _, tc := range append(refusalCases, envRefusalCases...) {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := ParseManifest([]byte(tc.src), DefaultLimits())
			if d := cmp.Diff(tc.want, diagLines(ds)); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
				for _, l := range diagLines(ds) {
					t.Logf("%q,", l)
				}
			}
		})
	}
}

// TestParseManifestComments: a "$comment" string in every object with
// fixed fields is ignored, so the manifest reads as the same one without
// them.
func TestParseManifestComments(t *testing.T) {
	const commented = `{
  "$comment": "root",
  "name": "local/planner",
  "version": "0.1.0",
  "capabilities": {
    "$comment": "capabilities",
    "plan":       {"$comment": "plan", "submit": true},
    "shell":      {"$comment": "shell", "allow": ["bash", "go", "cargo"], "timeout": "10m"},
    "spawn":      {"$comment": null, "allow": ["local/worker"]},
    "filesystem": {"$comment": "filesystem", "read_only": ["src", "go.mod"]}
  },
  "tools":  {"$comment": "tools", "builtin": ["repo-files", "notes", "read-file", "write-file"],
             "mcp": {"fs": {"$comment": "a server", "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."]}}},
  "hooks":  [{"$comment": "a hook", "on": "on-shell", "match": "rm *", "commit_policy": "deny"}],
  "entrypoint": {"$comment": "entrypoint", "plan": "worker-plan.json"}
}`
	got, ds := ParseManifest([]byte(commented), DefaultLimits())
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want, _ := ParseManifest([]byte(fullManifest), DefaultLimits())
	if d := cmp.Diff(want, got, ignoreSpans); d != "" {
		t.Errorf("manifest with comments (-without +with):\n%s", d)
	}
}
