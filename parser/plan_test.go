package parser_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

type diagAt struct {
	Code      string
	Line, Col int
}

func diagsAt(ds []ast.Diagnostic) []diagAt {
	out := make([]diagAt, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagAt{d.Code, int(d.Span.Start.Line), int(d.Span.Start.Col)})
	}
	return out
}

// TestDocumentRefusals covers S1 and S5: each document-level refusal has
// its code and a position.
func TestDocumentRefusals(t *testing.T) {
	small := parser.Limits{MaxBytes: 64, MaxDepth: 3, MaxSteps: 2}
	tests := []struct {
		name string
		src  string
		lim  parser.Limits
		want []diagAt
	}{
		{"empty", "", parser.DefaultLimits(), []diagAt{{"json-syntax", 1, 1}}},
		{"blank", "  \n ", parser.DefaultLimits(), []diagAt{{"json-syntax", 2, 2}}},
		{"missing comma", "{\"id\": \"a\"\n \"steps\": []}", parser.DefaultLimits(), []diagAt{{"json-syntax", 2, 2}}},
		{"trailing comma", `{"id": "a", "steps": [1,]}`, parser.DefaultLimits(), []diagAt{{"json-syntax", 1, 25}}},
		{"unterminated string", `{"id": "a`, parser.DefaultLimits(), []diagAt{{"json-syntax", 1, 8}}},
		{"bad escape", `{"id": "a\q"}`, parser.DefaultLimits(), []diagAt{{"json-syntax", 1, 10}}},
		{"control char", "{\"id\": \"a\tb\"}", parser.DefaultLimits(), []diagAt{{"json-syntax", 1, 10}}},
		{"bad number", `{"retries": 01}`, parser.DefaultLimits(), []diagAt{{"json-syntax", 1, 14}}},
		{"trailing data", "{}\n{}", parser.DefaultLimits(), []diagAt{{"trailing-data", 2, 1}}},
		{"invalid utf8", "{\"id\":\n \"\xff\"}", parser.DefaultLimits(), []diagAt{{"invalid-utf8", 2, 3}}},
		{"not an object", `[1]`, parser.DefaultLimits(), []diagAt{{"not-an-object", 1, 1}}},
		{"duplicate plan key", `{"id": "a", "id": "b", "steps": []}`, parser.DefaultLimits(), []diagAt{{"duplicate-key", 1, 13}}},
		{"too large", `{"id": "a", "steps": [], "x": "` + strings.Repeat("y", 64) + `"}`, small, []diagAt{{"too-large", 1, 1}}},
		{"too deep", `{"a": [[[1]]]}`, small, []diagAt{{"too-deep", 1, 9}}},
		{"too many steps", `{"steps": [{}, {}, {}]}`, small, []diagAt{{"too-many-steps", 1, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := parser.ParsePlan([]byte(tc.src), tc.lim)
			if diff := cmp.Diff(tc.want, diagsAt(ds)); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, ds)
			}
			for _, d := range ds {
				if d.Message == "" || d.Severity != ast.Error {
					t.Errorf("diagnostic without message or not an error: %+v", d)
				}
			}
		})
	}
}

// TestByteOrderMark: a plan saved with a byte order mark is refused at
// 1:1 with a message that names the mark and the fix, not U+FEFF alone.
func TestByteOrderMark(t *testing.T) {
	_, ds := parser.ParsePlan([]byte("\ufeff{\"id\": \"p\", \"steps\": []}"), parser.DefaultLimits())
	if diff := cmp.Diff([]diagAt{{"json-syntax", 1, 1}}, diagsAt(ds)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if m := ds[0].Message; !strings.Contains(m, "byte order mark") || !strings.Contains(m, "save the file as UTF-8 without a byte order mark") {
		t.Errorf("message %q names neither the mark nor the fix", m)
	}
}

// TestDuplicateKeyKeepsFirst: S1, a duplicate key is refused and the first
// member is the one kept, in input too.
func TestDuplicateKeyKeepsFirst(t *testing.T) {
	src := `{"id": "p", "steps": [{"id": "a", "tool": "notes", "input": {"k": "1", "k": "2"}}]}`
	plan, ds := parser.ParsePlan([]byte(src), parser.DefaultLimits())
	if len(ds) != 1 || ds[0].Code != "duplicate-key" || !strings.Contains(ds[0].Message, "first at 1:62") {
		t.Fatalf("diagnostics: %+v", ds)
	}
	if got := plan.Steps[0].Input.Get("k").Value.Str; got != "1" {
		t.Errorf("kept %q, want the first value", got)
	}
}

// TestSpans: every node has a start and an end, and reference spans map
// into the file, also after escapes.
func TestSpans(t *testing.T) {
	src := "{\"id\": \"p\",\n \"steps\": [\n  {\"id\": \"a\", \"tool\": \"notes\", \"input\": {\"x\": \"$b.output\", \"y\": \"\\u00e9$b\"}},\n  {\"id\": \"b\", \"tool\": \"notes\", \"if\": \"\\\"q\\\" == $a.status\"}\n]}"
	plan, ds := parser.ParsePlan([]byte(src), parser.DefaultLimits())
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	a, b := plan.Steps[0], plan.Steps[1]
	type span struct{ L1, C1, L2, C2 int }
	sp := func(r ast.Range) span {
		s := plan.Lines.Span(r)
		return span{int(s.Start.Line), int(s.Start.Col), int(s.End.Line), int(s.End.Col)}
	}
	got := []span{sp(plan.Span), sp(a.Span), sp(a.IDField().KeySpan()), sp(a.IDField().Span), sp(a.Refs[0].Span), sp(a.Refs[0].IDSpan()), sp(a.Refs[0].FieldSpan()), sp(b.Refs[0].Span)}
	want := []span{{1, 1, 5, 3}, {3, 3, 3, 77}, {3, 4, 3, 8}, {3, 10, 3, 13}, {3, 48, 3, 57}, {3, 49, 3, 50}, {3, 51, 3, 57}, {4, 48, 4, 57}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if len(a.Refs) != 1 {
		t.Errorf("a string that only contains $b is not a reference (S6): %v", a.Refs)
	}
	line := strings.Split(src, "\n")[3]
	if got := line[plan.Lines.Pos(b.Refs[0].Span.Start).Col-1 : plan.Lines.Pos(b.Refs[0].Span.End).Col-1]; got != "$a.status" {
		t.Errorf("escaped condition ref maps to %q", got)
	}
}

// TestNullIsAbsent: S3, null for an optional field is the same as leaving
// it out.
func TestNullIsAbsent(t *testing.T) {
	src := `{"id": "p", "steps": [{"id": "a", "tool": "notes", "if": null, "on_error": null, "retries": null, "depends_on": null, "input": null}]}`
	plan, ds := parser.ParsePlan([]byte(src), parser.DefaultLimits())
	ds = append(ds, check.Check(plan, nil)...)
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	s := plan.Steps[0]
	if s.IfField() != nil || s.OnErrorField() != nil || s.RetriesField() != nil || s.DependsOnField() != nil || s.InputField() != nil || s.Input != nil {
		t.Errorf("null fields kept: %+v", s)
	}
}

// TestParseRef: the exact shape of S6.
func TestParseRef(t *testing.T) {
	for s, want := range map[string]bool{
		"$a.output": true, "$a-b_1.status": true, "$a.other": true,
		"$a": false, "$.output": false, "$a.": false, "$a.output ": false, " $a.output": false,
		"see $a.output": false, "$a.b.c": false, "$a.out-put": false, "$a b.output": false,
	} {
		if got := parser.ParseRef(s) != nil; got != want {
			t.Errorf("ParseRef(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzParsePlan: no input panics the parser or the checker; the parser
// accepts exactly what encoding/json accepts, for valid UTF-8 within the
// depth limit; and accepted plans have ordered spans.
func FuzzParsePlan(f *testing.F) {
	for _, s := range []string{
		`{"id": "p", "steps": []}`,
		`{"id": "p", "steps": [{"id": "a", "tool": "notes", "input": {"b": "$x.output"}, "if": "$x.status == 'ok'"}]}`,
		`{"id": "p", "steps": [{"id": "a", "shell": "bash -c 'x'", "depends_on": ["a"]}]}`,
		`{"a": "\ud83d\ude00 \u00e9 \\ \/", "b": [1.5e-3, -0, true, false, null]}`,
		`{"id": "p", "steps": [{"id": "a", "capsule": "w", "input": {"objective": "\"x\""}, "retries": 3, "on_error": "skip"}]}`,
		`[`, `{"a":}`, `{"a" 1}`, "\xff", `{"a": "\ud800"}`,
		// Which "steps" is the steps list: the root's first one only.
		`{"id": "p", "steps": [{"id": "a", "tool": "t"}], "steps": [{"id": "b", "tool": "t"}]}`,
		`{"id": "p", "steps": null, "steps": [{"id": "b", "tool": "t"}]}`,
		`{"id": "p", "x": {"steps": [{"id": "a"}]}, "steps": [1, {"id": "b", "tool": "t", "input": {"steps": [{}]}}]}`,
	} {
		f.Add([]byte(s))
	}
	caps := &check.Capabilities{Tools: []string{"notes"}, ShellAllow: []string{"bash"}, SpawnAllow: []string{"local/w"}}
	f.Fuzz(func(t *testing.T, src []byte) {
		plan, ds := parser.ParsePlan(src, parser.DefaultLimits())
		_ = check.Check(plan, caps)
		_ = check.Check(plan, nil)
		v, jds := parser.ParseJSON(src, parser.DefaultLimits())
		// Steps are built while the document is parsed, straight from
		// its tokens: they must be exactly the objects of the steps list
		// as ParseJSON reads it, in order, with their index in it and
		// their range, and NotObjects exactly its other elements.
		if plan != nil && plan.StepsField != nil && plan.StepsField.Value.Kind == ast.Array {
			list := v.Get("steps").Value
			k, o := 0, 0
			for i, e := range list.Elems() {
				if e.Kind != ast.Object {
					if o >= len(plan.NotObjects) || plan.NotObjects[o].Index != i || plan.NotObjects[o].Value.Span != e.Span || plan.NotObjects[o].Value.Kind != e.Kind {
						t.Fatalf("element %d of the list is not NotObjects[%d]", i, o)
					}
					o++
					continue
				}
				if k >= len(plan.Steps) || plan.Steps[k].Span != e.Span || plan.Steps[k].Index != i || len(plan.Steps[k].Fields) != len(e.Members()) {
					t.Fatalf("step %d of the list is not Steps[%d] (%d steps built)", i, k, len(plan.Steps))
				}
				for j, m := range e.Members() {
					f := &plan.Steps[k].Fields[j]
					if plan.Steps[k].Key(f) != m.Key || f.KeySpan() != m.KeySpan() || f.Span != m.Value.Span || f.Kind != m.Value.Kind {
						t.Fatalf("member %d of step %d: %+v, want %q at %v", j, i, f, m.Key, m.KeySpan())
					}
				}
				k++
			}
			if k != len(plan.Steps) || o != len(plan.NotObjects) {
				t.Fatalf("%d steps and %d other elements built for %d objects and %d others in the list", len(plan.Steps), len(plan.NotObjects), k, o)
			}
		} else if plan != nil && len(plan.Steps) != 0 {
			t.Fatalf("%d steps without a steps list", len(plan.Steps))
		}
		fatal := false
		for _, d := range jds {
			if d.Code != parser.CodeDuplicateKey {
				fatal = true
			}
			if !d.Span.IsValid() || d.Span.End.Offset < d.Span.Start.Offset {
				t.Fatalf("bad span %+v", d)
			}
		}
		if utf8.Valid(src) && !hasCode(jds, parser.CodeTooDeep) {
			if json.Valid(src) == fatal {
				t.Fatalf("encoding/json valid=%v, ours fatal=%v (%v)", json.Valid(src), fatal, jds)
			}
		}
		if v != nil {
			ast.Walk(v, func(x *ast.Value) bool {
				if x.Span.End <= x.Span.Start || int(x.Span.End) > len(src) {
					t.Fatalf("bad value span %v in %q", x.Span, src)
				}
				return true
			})
		}
		_ = ds
	})
}

func hasCode(ds []ast.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}
