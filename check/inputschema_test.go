package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/parser"
)

// TestCompileInputSchemaLoadsNothing: a $ref outside the schema is not
// followed (no file, no network): the schema does not compile.
func TestCompileInputSchemaLoadsNothing(t *testing.T) {
	for _, ref := range []string{"file:///etc/passwd", "https://example.com/s.json"} {
		_, err := CompileInputSchema(json.RawMessage(`{"type": "object", "properties": {"a": {"$ref": "` + ref + `"}}}`))
		if err == nil || !strings.Contains(err.Error(), "only references inside a tool's own schema resolve") {
			t.Errorf("%s: %v", ref, err)
		}
	}
	if _, err := CompileInputSchema(json.RawMessage(`{"type": `)); err == nil {
		t.Error("a schema that is not JSON compiled")
	}
}

// TestInputSchemaDrafts: the draft is the schema's own. Under draft-07 a
// $ref's sibling keywords are ignored; under 2020-12 (the default) they
// apply.
func TestInputSchemaDrafts(t *testing.T) {
	const body = `"properties": {"a": {"$ref": "#/definitions/s", "type": "integer"}}, "definitions": {"s": {"type": "string"}}}`
	draft7, err := CompileInputSchema(json.RawMessage(`{"$schema": "http://json-schema.org/draft-07/schema#", ` + body))
	if err != nil {
		t.Fatal(err)
	}
	latest, err := CompileInputSchema(json.RawMessage(`{` + body))
	if err != nil {
		t.Fatal(err)
	}
	if err := draft7.Validate(json.RawMessage(`{"a": "x"}`)); err != nil {
		t.Errorf("draft-07: %v", err)
	}
	if err := latest.Validate(json.RawMessage(`{"a": "x"}`)); err == nil || err.Error() != `"a" must be an integer, not a string` {
		t.Errorf("2020-12: %v", err)
	}
}

// TestInputSchemaValidate: what a tool that holds its input to its schema
// says, without positions: every finding, the unknown fields of one object
// in one message; an empty input is {}.
func TestInputSchemaValidate(t *testing.T) {
	s, err := CompileInputSchema(json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer", "maximum": 3}},
		"required": ["path"], "additionalProperties": false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ input, want string }{
		{`{"path": "x", "n": 2}`, ""},
		{``, `the input has no "path"; the tool takes {"path": "…", "n": 0}`},
		{`{"path": "x", "b": 1, "a": 2}`, `unknown input field "a", "b"; the tool takes {"path": "…", "n": 0}`},
		{`{"path": "x", "n": 4}`, `"n" must be at most 3, not 4`},
		{`{"path": null, "n": "2"}`, `"n" must be an integer, not a string; "path" is null; it must be a string (a reference to a step that produced no output reads as null)`},
		{`[1]`, `the input must be an object, not a list; the tool takes {"path": "…", "n": 0}`},
		{`{"path": "x"} x`, `the input is not JSON: invalid character after top-level value`},
	} {
		got := ""
		if err := s.Validate(json.RawMessage(tc.input)); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.input, got, tc.want)
		}
	}
}

// checkTool checks a plan whose steps call tool "t" with schema, after a
// step "a", and returns the tool-input findings as "line:col message".
func checkTool(t *testing.T, schema, steps string) []string {
	t.Helper()
	src := `{"id": "p", "steps": [{"id": "a", "tool": "t", "input": {}},` + "\n" + steps + `]}`
	plan, ds := parser.ParsePlan([]byte(src), parser.DefaultLimits())
	if plan == nil || len(ds) > 0 {
		t.Fatalf("%s: %v", src, ds)
	}
	caps := (&Capabilities{Tools: []string{"t"}}).WithSchemas(map[string]json.RawMessage{"t": json.RawMessage(schema)})
	var out []string
	for _, d := range Check(plan, caps) {
		if d.Code == "tool-input" {
			out = append(out, d.Span.Start.String()+" "+d.Message)
		}
	}
	return out
}

// TestToolInputReferences: a reference stands for every value it may
// take (S8) — $x.output null or any text, $x.status one of three words —
// and is refused only where none of them satisfies the schema.
func TestToolInputReferences(t *testing.T) {
	for _, tc := range []struct {
		name, prop, value string
		refused           bool
	}{
		{"output as an integer", `{"type": "integer"}`, `$a.output`, true},
		{"output as an integer or null", `{"type": ["integer", "null"]}`, `$a.output`, false},
		{"output as not a string", `{"not": {"type": "string"}}`, `$a.output`, false}, // null
		{"output under a pattern", `{"type": "string", "pattern": "^[0-9]+$"}`, `$a.output`, false},
		{"output as a const", `{"const": "exact"}`, `$a.output`, false},
		{"output as an enum of numbers", `{"enum": [1, 2]}`, `$a.output`, true},
		{"status as an enum with success", `{"enum": ["success", "other"]}`, `$a.status`, false},
		{"status as an enum without the statuses", `{"enum": ["ok", "error"]}`, `$a.status`, true},
		{"status as an integer", `{"type": "integer"}`, `$a.status`, true},
		{"status under a pattern none matches", `{"type": "string", "pattern": "^[0-9]+$"}`, `$a.status`, true},
		{"status as null", `{"type": "null"}`, `$a.status`, true},
	} {
		schema := `{"type": "object", "properties": {"v": ` + tc.prop + `}}`
		got := checkTool(t, schema, `{"id": "b", "tool": "t", "depends_on": ["a"], "input": {"v": "`+tc.value+`"}}`)
		if (len(got) > 0) != tc.refused {
			t.Errorf("%s: findings %q, want refused %v", tc.name, got, tc.refused)
		}
	}
}

// TestToolInputRepeats: an input valid once is valid again, but a step
// that differs only in the kind of a reference is checked on its own.
func TestToolInputRepeats(t *testing.T) {
	schema := `{"type": "object", "properties": {"v": {"enum": ["x", "y"]}}}`
	got := checkTool(t, schema, `{"id": "b", "tool": "t", "depends_on": ["a"], "input": {"v": "$a.output"}},
{"id": "c", "tool": "t", "depends_on": ["a"], "input": {"v": "$a.output"}},
{"id": "d", "tool": "t", "depends_on": ["a"], "input": {"v": "$a.status"}},
{"id": "e", "tool": "t", "depends_on": ["a"], "input": {"v": "z"}}`)
	want := []string{
		`4:62 tool "t": "v" must be one of "x", "y", but $a.status stands there, which is "success", "failed" or "skipped" when the step runs (S8)`,
		`5:62 tool "t": "v" must be one of "x", "y", not "z"; did you mean "x"?`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestToolInputUnusableSchema: a tool whose schema does not compile has
// its input left to the tool; a string input is refused all the same.
func TestToolInputUnusableSchema(t *testing.T) {
	got := checkTool(t, `{"type": "object", "properties": {"v": {"$ref": "https://example.com/v.json"}}}`,
		`{"id": "b", "tool": "t", "input": {"v": 1}}, {"id": "c", "tool": "t", "input": "text"}`)
	want := []string{`2:80 tool "t": a tool step's input must be an object, not a string; write "input": {"<field>": "<value>"}`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestToolInputRefCycle: a schema that refers to itself without reaching
// a keyword ({"$ref": "#"} at its root, or a property that is its own
// $ref) is the tool's fault: it refuses no input, as a schema that does
// not compile, rather than every input with the validator's words. A
// recursive schema that descends into the input still holds it.
func TestToolInputRefCycle(t *testing.T) {
	for _, schema := range []string{
		`{"type": "object", "$ref": "#"}`,
		`{"type": "object", "properties": {"x": {"$ref": "#/properties/x"}}}`,
		`{"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`,
	} {
		if got := checkTool(t, schema, `{"id": "b", "tool": "t", "input": {"x": 1}}`); len(got) > 0 {
			t.Errorf("%s: %q", schema, got)
		}
	}
	got := checkTool(t, `{"type": "object", "properties": {"child": {"$ref": "#"}, "v": {"type": "integer"}}}`,
		`{"id": "b", "tool": "t", "input": {"child": {"child": {"v": "s"}}}}`)
	want := []string{`2:61 tool "t": "child/child/v" must be an integer, not a string`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("recursive schema (-want +got):\n%s", d)
	}
}

// TestInputSchemaTooLarge: a schema of more than maxSchemaNodes objects
// and booleans is not compiled (the compiler's time grows with their
// square), so a step's input is left to the tool; one at the bound is.
func TestInputSchemaTooLarge(t *testing.T) {
	schema := func(n int) string { // a schema of n objects
		var b strings.Builder
		b.WriteString(`{"type": "object", "required": ["p0"], "properties": {`)
		for i := range n - 2 { // the root and its properties are two
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"p%d": {"type": "string"}`, i)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	if _, err := CompileInputSchema(json.RawMessage(schema(maxSchemaNodes))); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	_, err := CompileInputSchema(json.RawMessage(schema(maxSchemaNodes + 1)))
	if err == nil || !strings.Contains(err.Error(), "planc holds no input to a schema this large") {
		t.Fatalf("over the bound: %v", err)
	}
	if got := checkTool(t, schema(maxSchemaNodes+1), `{"id": "b", "tool": "t", "input": {"p1": 1}}`); len(got) > 0 {
		t.Errorf("over the bound, refused: %q", got)
	}
}

// TestWithSchemas: a later schema replaces an earlier one of the same
// name; the receiver is left alone; nil stays nil.
func TestWithSchemas(t *testing.T) {
	c := (&Capabilities{Tools: []string{"t"}}).WithSchemas(map[string]json.RawMessage{"t": json.RawMessage(`1`), "u": json.RawMessage(`2`)})
	d := c.WithSchemas(map[string]json.RawMessage{"t": json.RawMessage(`3`)})
	if string(c.ToolSchemas["t"]) != "1" || string(d.ToolSchemas["t"]) != "3" || string(d.ToolSchemas["u"]) != "2" {
		t.Errorf("c %s, d %s", c.ToolSchemas, d.ToolSchemas)
	}
	var none *Capabilities
	if none.WithSchemas(nil) != nil {
		t.Error("nil.WithSchemas is not nil")
	}
}

// TestToolInputConcurrent: checks running at once share compiled schemas
// and what they learn of them (run with -race).
func TestToolInputConcurrent(t *testing.T) {
	schema := `{"type": "object", "properties": {"v": {"enum": ["x", "y"]}, "n": {"type": "integer"}}, "required": ["v"]}`
	steps := `{"id": "b", "tool": "t", "depends_on": ["a"], "input": {"v": "$a.output", "n": "$a.status"}}`
	want := checkTool(t, schema, steps)
	if len(want) != 2 {
		t.Fatalf("findings %q", want) // "a" lacks "v"; "n" cannot be a status
	}
	done := make(chan []string)
	for range 8 {
		go func() { done <- checkTool(t, schema, steps) }()
	}
	for range 8 {
		if got := <-done; !cmp.Equal(want, got) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestToolInputAbsent: a step without input is held to the schema as {},
// and a missing required field is reported at its "tool" key with the
// input to add; with an empty input, at the input object.
func TestToolInputAbsent(t *testing.T) {
	got := checkTool(t, `{"type": "object", "required": ["a", "b"]}`, `{"id": "b", "tool": "t"}`)
	want := []string{
		`1:57 tool "t": the input has no "a", "b"`,
		`2:13 tool "t": the step has no input, and the tool needs "a", "b"; add "input": {"a": "…", "b": "…"}`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestToolInputHints: a reference at a place where another reference
// passed before is tried first with the value that passed (a shortcut),
// and what is found is the same as in a check that has no such value to
// try: each step checked alone in a plan of its own, against a schema
// compiled afresh.
func TestToolInputHints(t *testing.T) {
	schema := `{"type": "object", "properties": {
		"env": {"enum": ["staging", "production"]},
		"service": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
		"n": {"type": "integer"}, "st": {"enum": ["success", "x"]}},
		"required": ["env"], "additionalProperties": false, "$comment": "%d"}`
	steps := []string{
		`{"id": "b", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.output", "service": "api-1"}}`,
		`{"id": "c", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.output", "service": "api-2"}}`,
		`{"id": "d", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.output", "service": "Bad Name"}}`,
		`{"id": "e", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.output", "n": "$a.output"}}`,
		`{"id": "f", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.status", "st": "$a.status"}}`,
		`{"id": "g", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.output", "st": "$a.status", "extra": 1}}`,
		`{"id": "h", "tool": "t", "depends_on": ["a"], "input": {"env": "$a.output", "st": "$a.status", "service": "api-3"}}`,
	}
	// columns returns the tool-input findings of steps against a schema
	// compiled afresh for each n, without step a's (its input {} lacks
	// env) and without line numbers: each step alone is on line 2, step i
	// of the whole plan on line i+2, so the columns are compared.
	columns := func(n int, steps string) []string {
		var out []string
		for _, f := range checkTool(t, fmt.Sprintf(schema, n), steps) {
			if !strings.HasPrefix(f, "1:") {
				out = append(out, f[strings.IndexByte(f, ':'):])
			}
		}
		return out
	}
	var alone []string
	for i, s := range steps {
		alone = append(alone, columns(i, s)...)
	}
	together := columns(len(steps), strings.Join(steps, ",\n"))
	if d := cmp.Diff(alone, together); d != "" {
		t.Errorf("findings alone vs together (-alone +together):\n%s", d)
	}
	if len(together) != 4 {
		t.Errorf("want the findings of d, e (n), f (env) and g; got %q", together)
	}
	// A second check against the same compiled schema, with its hints in
	// place, finds the same again.
	again := columns(len(steps), strings.Join(steps, ",\n"))
	if d := cmp.Diff(together, again); d != "" {
		t.Errorf("second check (-first +second):\n%s", d)
	}
}

// TestMissingBesideExtra: a schema that allows members it does not name
// reports no unknown one, so an absent required member names the extra
// member closest to it (a misspelling); none when no extra is close, and
// none where the schema refuses the extra member itself (it has its own
// did-you-mean there).
func TestMissingBesideExtra(t *testing.T) {
	open, err := CompileInputSchema(json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
		"required": ["path", "content"]}`))
	if err != nil {
		t.Fatal(err)
	}
	closed, err := CompileInputSchema(json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
		"required": ["path", "content"], "additionalProperties": false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s           *InputSchema
		input, want string
	}{
		{open, `{"path": "x", "contents": "y"}`, `the input has no "content"; did you mean "contents"? rename "contents" to "content"`},
		{open, `{"path": "x", "zzz": "y"}`, `the input has no "content"; the tool takes {"path": "…", "content": "…"}`},
		{closed, `{"path": "x", "contents": "y"}`, `the input has no "content"; the tool takes {"path": "…", "content": "…"}; unknown input field "contents"; did you mean "content"?`},
	} {
		got := ""
		if err := tc.s.Validate(json.RawMessage(tc.input)); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.input, got, tc.want)
		}
	}
}

// TestToolInputPropertyNames: a key that fails the schema's propertyNames
// is reported at the object holding it, every time (the validator's own
// place for it can be a sibling's, varying with map order), with the
// pattern it does not match.
func TestToolInputPropertyNames(t *testing.T) {
	schema := `{"type": "object", "properties": {"template": {"type": "string"}, "note": {"type": "string"},
		"values": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}}}`
	want := []string{`2:76 tool "t": "values" has the key "b c", which does not match the pattern "^[a-z]+$" the schema holds keys to; rename or remove it`}
	for range 20 {
		got := checkTool(t, schema, `{"id": "b", "tool": "t", "input": {"template": "x", "note": "y", "values": {"a": "1", "b c": "2"}}}`)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("(-want +got):\n%s", d)
		}
	}
}
