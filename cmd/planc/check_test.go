package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/parser"
)

// The messages are the parser's and the checker's business; these tests pin
// planc's formats, so they take each message from the packages.

// diagOf returns the one diagnostic with code that parsing and checking src
// (with caps) gives.
func diagOf(t *testing.T, src, code string, caps *check.Capabilities) ast.Diagnostic {
	t.Helper()
	_, ds := check.Load([]byte(src), caps)
	var found []ast.Diagnostic
	for _, d := range ds {
		if d.Code == code {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s diagnostic for %q, got %v", code, src, ds)
	}
	return found[0]
}

// defaultCaps is what the embedded default capsule grants, as check sees
// it when no --capsule is given and no .planc/capsule.json is found.
func defaultCaps() *check.Capabilities {
	caps := check.CapabilitiesOf(capenv.DefaultManifest()).WithSchemas(toolschema.Builtin())
	caps.Embedded = true
	return caps
}

// block is one diagnostic in the text format.
func block(file, pos, severity, message, code, line, caret string) string {
	s := fmt.Sprintf("%s:%s: %s: %s [%s]\n", file, pos, severity, message, code)
	if line != "" {
		s += "    " + line
	}
	return s + "\n    " + caret + "\n"
}

const (
	validPlan   = `{"id": "ok", "steps": [{"id": "a", "tool": "notes", "input": {"body": "hi"}}]}`
	dupKeyPlan  = `{"id": "p", "steps": [], "id": "q"}`
	syntaxPlan  = `{"id": "p", "steps": [}`
	warningPlan = `{"id": "w", "steps": [
  {"id": "check", "tool": "repo-files", "input": {"glob": "*_test.go"}},
  {"id": "note", "tool": "notes", "input": {"body": "$check.output"}}
]}`
)

func TestCheckText(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		code       string
		pos        string // line:col in the header
		line       string // the source line as shown
		caret      string
		wantStatus int
	}{
		{
			name: "duplicate key", src: dupKeyPlan, code: parser.CodeDuplicateKey, pos: "1:26",
			line:  dupKeyPlan,
			caret: strings.Repeat(" ", 25) + "^~~~", wantStatus: 1,
		},
		{
			// Columns count bytes (日本✓é is 11 bytes), carets count
			// terminal cells (日 and 本 take two, ✓ and é one).
			name: "multi-byte UTF-8 before the span", src: `{"id": "日本✓é", "steps": [], "id": "q"}`,
			code: parser.CodeDuplicateKey, pos: "1:36",
			line:  `{"id": "日本✓é", "steps": [], "id": "q"}`,
			caret: strings.Repeat(" ", 30) + "^~~~", wantStatus: 1,
		},
		{
			name: "tab-indented line", src: "{\n\t\"id\": \"p\",\n\t\"steps\": [],\n\t\t\"id\": \"q\"\n}\n",
			code: parser.CodeDuplicateKey, pos: "4:3",
			line: "\t\t\"id\": \"q\"", caret: "\t\t^~~~", wantStatus: 1,
		},
		{
			name: "tabs and text before the span", src: "{\"id\": \"p\",\t\"steps\": [],\t \"id\": \"q\"}",
			code: parser.CodeDuplicateKey, pos: "1:27",
			line: "{\"id\": \"p\",\t\"steps\": [],\t \"id\": \"q\"}", caret: "           \t            \t ^~~~", wantStatus: 1,
		},
		{
			name: "one-byte span", src: syntaxPlan, code: parser.CodeJSONSyntax, pos: "1:23",
			line: syntaxPlan, caret: strings.Repeat(" ", 22) + "^", wantStatus: 1,
		},
		{
			name: "end of the document", src: `{"id": "p"`, code: parser.CodeJSONSyntax, pos: "1:11",
			line: `{"id": "p"`, caret: strings.Repeat(" ", 10) + "^", wantStatus: 1,
		},
		{
			name: "empty document", src: "", code: parser.CodeJSONSyntax, pos: "1:1",
			line: "", caret: "^", wantStatus: 1,
		},
		{
			name: "span over several lines is clipped to its first", src: "{\"id\": \"p\", \"steps\": []}\n  extra\nmore\n",
			code: parser.CodeTrailingData, pos: "2:3",
			line: "  extra", caret: "  ^~~~~", wantStatus: 1,
		},
		{
			name: "CRLF line endings", src: "[\r\n  1\r\n]\r\n", code: parser.CodeNotAnObject, pos: "1:1",
			line: "[", caret: "^", wantStatus: 1,
		},
		{
			name: "warning", src: warningPlan, code: "reference-not-dependency", pos: "3:54",
			line:  `  {"id": "note", "tool": "notes", "input": {"body": "$check.output"}}`,
			caret: strings.Repeat(" ", 53) + "^" + strings.Repeat("~", 12), wantStatus: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inTempDir(t, map[string]string{"plan.json": tt.src})
			d := diagOf(t, tt.src, tt.code, defaultCaps())
			want := result{
				Stdout: block("plan.json", tt.pos, d.Severity.String(), d.Message, tt.code, tt.line, tt.caret),
				Stderr: "",
				Code:   tt.wantStatus,
			}
			got := run(t, "", "check", "plan.json")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("planc check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckValidPlan(t *testing.T) {
	inTempDir(t, map[string]string{"plan.json": validPlan})
	for _, format := range []string{"text", "json", "sarif"} {
		got := run(t, "", "check", "--format", format, "--werror", "plan.json")
		if got.Code != 0 || got.Stderr != "" {
			t.Errorf("--format %s: status %d, stderr %q; want 0 and the capsule note", format, got.Code, got.Stderr)
		}
		if format == "text" && got.Stdout != "" {
			t.Errorf("--format text: stdout %q, want nothing", got.Stdout)
		}
		if format == "json" && got.Stdout != "[]\n" {
			t.Errorf("--format json: stdout %q, want []", got.Stdout)
		}
	}
}

func TestCheckWerror(t *testing.T) {
	inTempDir(t, map[string]string{"plan.json": warningPlan})
	d := diagOf(t, warningPlan, "reference-not-dependency", defaultCaps())
	if d.Severity != ast.Warning {
		t.Fatalf("reference-not-dependency is an %s, want a warning", d.Severity)
	}
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"check", "plan.json"}, 0},
		{[]string{"check", "--werror", "plan.json"}, 1},
		{[]string{"check", "plan.json", "--werror"}, 1},
		{[]string{"check", "--werror", "--format", "json", "plan.json"}, 1},
	} {
		got := run(t, "", tt.args...)
		if got.Code != tt.want {
			t.Errorf("planc %s: status %d, want %d", strings.Join(tt.args, " "), got.Code, tt.want)
		}
		if !strings.Contains(got.Stdout, "reference-not-dependency") {
			t.Errorf("planc %s: the warning is missing:\n%s", strings.Join(tt.args, " "), got.Stdout)
		}
	}
}

func TestCheckSeveralFilesSorted(t *testing.T) {
	inTempDir(t, map[string]string{
		"b.json":  syntaxPlan,
		"a.json":  dupKeyPlan,
		"ok.json": validPlan,
		"c.json":  "{\"id\": \"p\", \"id\": \"q\",\n \"steps\": [], \"steps\": []}",
	})
	dup := diagOf(t, dupKeyPlan, parser.CodeDuplicateKey, nil)
	syn := diagOf(t, syntaxPlan, parser.CodeJSONSyntax, nil)
	plan, cds := parser.ParsePlan([]byte("{\"id\": \"p\", \"id\": \"q\",\n \"steps\": [], \"steps\": []}"), parser.DefaultLimits())
	if plan == nil || len(cds) != 2 {
		t.Fatalf("c.json: want a plan and two duplicate keys, got %v", cds)
	}
	want := result{
		Stdout: block("a.json", "1:26", "error", dup.Message, "duplicate-key", dupKeyPlan, strings.Repeat(" ", 25)+"^~~~") +
			block("b.json", "1:23", "error", syn.Message, "json-syntax", syntaxPlan, strings.Repeat(" ", 22)+"^") +
			block("c.json", "1:13", "error", cds[0].Message, "duplicate-key", `{"id": "p", "id": "q",`, strings.Repeat(" ", 12)+"^~~~") +
			block("c.json", "2:15", "error", cds[1].Message, "duplicate-key", ` "steps": [], "steps": []}`, strings.Repeat(" ", 14)+"^~~~~~~"),
		Stderr: "",
		Code:   1,
	}
	got := run(t, "", "check", "ok.json", "c.json", "b.json", "a.json")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planc check (-want +got):\n%s", diff)
	}
}

func TestCheckStdin(t *testing.T) {
	inTempDir(t, map[string]string{"a.json": syntaxPlan})
	dup := diagOf(t, dupKeyPlan, parser.CodeDuplicateKey, nil)
	syn := diagOf(t, syntaxPlan, parser.CodeJSONSyntax, nil)
	want := result{
		Stdout: block("-", "1:26", "error", dup.Message, "duplicate-key", dupKeyPlan, strings.Repeat(" ", 25)+"^~~~") +
			block("a.json", "1:23", "error", syn.Message, "json-syntax", syntaxPlan, strings.Repeat(" ", 22)+"^"),
		Stderr: "",
		Code:   1,
	}
	got := run(t, dupKeyPlan, "check", "a.json", "-")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planc check a.json - (-want +got):\n%s", diff)
	}
	got = run(t, validPlan, "check", "-")
	if diff := cmp.Diff(result{}, got); diff != "" {
		t.Errorf("planc check - (-want +got):\n%s", diff)
	}
}

func TestCheckUnreadable(t *testing.T) {
	dir := inTempDir(t, map[string]string{"a.json": dupKeyPlan, "ok.json": validPlan, "none/capsule.json": "{}"})
	dup := diagOf(t, dupKeyPlan, parser.CodeDuplicateKey, nil)
	got := run(t, "", "check", "missing.json", "a.json", "none")
	want := result{
		Stdout: block("a.json", "1:26", "error", dup.Message, "duplicate-key", dupKeyPlan, strings.Repeat(" ", 25)+"^~~~"),
		Stderr: "planc check: none holds no plan file (a *.json file other than capsule.json); name plan files, or a directory that holds some\n" +
			"planc check: open missing.json: no such file or directory\n",
		Code: 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planc check missing.json a.json none in %s (-want +got):\n%s", dir, diff)
	}
	// An unreadable file is exit status 2 even when the rest is clean.
	if got := run(t, "", "check", "ok.json", "missing.json"); got.Code != 2 || got.Stdout != "" {
		t.Errorf("planc check ok.json missing.json: status %d, stdout %q; want 2 and nothing", got.Code, got.Stdout)
	}
}

func TestCheckTooLarge(t *testing.T) {
	lim := parser.DefaultLimits()
	big := `{"id": "p", "steps": [], "pad": "` + strings.Repeat("x", lim.MaxBytes) + `"}`
	got := run(t, big, "check", "--format", "json", "-")
	if got.Code != 1 || !strings.Contains(got.Stdout, `"code": "too-large"`) {
		t.Errorf("a plan over %d bytes: status %d, stdout %.300q; want 1 and too-large", lim.MaxBytes, got.Code, got.Stdout)
	}
}
