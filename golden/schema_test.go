package golden

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// The JSON Schemas of docs/schema are held to the checker and the manifest
// parser here, so that they cannot drift apart: every plan and manifest
// the repository ships validates, every golden plan the checker refuses
// with a schema-level code fails the schema, and the drift tables below
// compare the two on cases made to sit on each rule's edge.

const (
	planSchemaPath    = "../docs/schema/plan.schema.json"
	capsuleSchemaPath = "../docs/schema/capsule.schema.json"
)

// schemaCodes are the checker's codes for refusals that JSON Schema can
// express in full: a plan refused with one of them must fail the schema.
var schemaCodes = []string{
	"unknown-field", "missing-field", "wrong-type", "empty-id", "retries-range",
	"on-error-value", "no-step-kind", "several-step-kinds", "capsule-input", "not-an-object",
}

// partialCodes are codes whose refusals the schema expresses only in part:
// a blank shell line (not unclosed quotes), the condition grammar, a
// reference field other than output or status, the submit-plan tool.
var partialCodes = []string{"shell-syntax", "condition-syntax", "reference-field", "submit-plan-tool"}

func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	s, err := c.Compile(abs)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

// validate reports the schema's verdict on src: nil when it is valid.
// ok is false when src is not JSON at all.
func validate(t *testing.T, s *jsonschema.Schema, src []byte) (verr error, ok bool) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, false
	}
	return s.Validate(inst), true
}

// codesOf returns the codes of the diagnostics in a golden .out file.
func codesOf(t *testing.T, out string) []string {
	t.Helper()
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, m := range regexp.MustCompile(`(?m) \[([a-z0-9-]+)\]$`).FindAllStringSubmatch(string(raw), -1) {
		codes = append(codes, m[1])
	}
	return codes
}

func hasAny(codes, set []string) bool {
	return slices.ContainsFunc(codes, func(c string) bool { return slices.Contains(set, c) })
}

// shipped returns the plans and the manifests among examples/**/*.json (a
// document with "steps" is a plan, one with "name" a manifest) together
// with the golden ok plans, the golden capsule and the runtime's embedded
// default manifest.
func shipped(t *testing.T) (plans, manifests []string) {
	t.Helper()
	plans, _ = filepath.Glob("testdata/check/ok/*.json")
	manifests = []string{"testdata/check/capsule.json", "../host/capenv/default-capsule.json"}
	err := filepath.WalkDir("../examples", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(raw, &top) != nil {
			t.Errorf("%s is not a JSON object", path)
			return nil
		}
		switch {
		case top["steps"] != nil:
			plans = append(plans, path)
		case top["name"] != nil:
			manifests = append(manifests, path)
		default:
			t.Errorf("%s is neither a plan nor a manifest", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(manifests, "../examples/capsule.json") {
		t.Error("examples/capsule.json is not among the manifests")
	}
	return plans, manifests
}

// TestSchemaShipped: every plan and manifest the repository ships is valid
// under its schema.
func TestSchemaShipped(t *testing.T) {
	plan, capsule := compileSchema(t, planSchemaPath), compileSchema(t, capsuleSchemaPath)
	plans, manifests := shipped(t)
	if len(plans) < 2 {
		t.Fatalf("only %d plans found", len(plans))
	}
	for _, group := range []struct {
		schema *jsonschema.Schema
		files  []string
	}{{plan, plans}, {capsule, manifests}} {
		for _, f := range group.files {
			src, err := os.ReadFile(f)
			if err != nil {
				if f == "../host/capenv/default-capsule.json" && os.IsNotExist(err) {
					continue
				}
				t.Fatal(err)
			}
			if verr, ok := validate(t, group.schema, src); !ok || verr != nil {
				t.Errorf("%s: not valid under its schema: %v", f, verr)
			}
		}
	}
}

// TestSchemaErrPlans: a golden err plan whose expected diagnostics hold a
// schema-level code fails the plan schema; one whose codes the schema has
// no part in (a cycle, an unknown dependency, a warning) passes it, so the
// schema is not stricter than the checker either. Plans refused for what
// the document is (bad JSON, duplicate keys, limits) are left out of the
// second half: JSON Schema never sees them.
func TestSchemaErrPlans(t *testing.T) {
	s := compileSchema(t, planSchemaPath)
	var docCodes []string
	for _, c := range parser.Codes() {
		if c.Code != parser.CodeNotAnObject {
			docCodes = append(docCodes, c.Code)
		}
	}
	outs, _ := filepath.Glob("testdata/check/err/*.out")
	refused := 0
	for _, out := range outs {
		codes := codesOf(t, out)
		plan := strings.TrimSuffix(out, ".out") + ".json"
		t.Run(filepath.Base(plan), func(t *testing.T) {
			src, err := os.ReadFile(plan)
			if err != nil {
				t.Fatal(err)
			}
			verr, ok := validate(t, s, src)
			switch {
			case hasAny(codes, schemaCodes):
				refused++
				if !ok {
					t.Fatalf("codes %v, but the file is not JSON", codes)
				}
				if verr == nil {
					t.Errorf("refused by the checker with %v, valid under the schema", codes)
				}
			case hasAny(codes, docCodes) || hasAny(codes, partialCodes) || !ok:
			case verr != nil:
				t.Errorf("the checker refuses it only with %v, which the schema has no part in, but the schema refuses it: %v", codes, verr)
			}
		})
	}
	if refused < 8 {
		t.Errorf("only %d golden err plans have a schema-level code", refused)
	}
}

// checkerCodes returns the codes the parser and the checker (without
// capabilities) report for src, and whether any is an error.
func checkerCodes(src string) (codes []string, refused bool) {
	_, ds := check.Load([]byte(src), nil)
	for _, d := range ds {
		codes = append(codes, d.Code)
		refused = refused || d.Severity == ast.Error
	}
	return codes, refused
}

// planOf wraps steps (JSON objects) in a plan whose first step is "a".
func planOf(steps ...string) string {
	return `{"id": "p", "steps": [{"id": "a", "tool": "notes"}` + strings.Join(append([]string{""}, steps...), ", ") + `]}`
}

// planDrift holds plans on the edge of each rule. valid is the schema's
// verdict; gap, when set, says why it differs from the checker's.
var planDrift = []struct {
	src   string
	valid bool
	gap   string
}{
	// Accepted by both.
	{planOf(), true, ""},
	{`{"id": "p", "steps": []}`, true, ""},
	{`{"id": "ünï 日本", "steps": []}`, true, ""},
	{planOf(`{"id": "b", "shell": "go test ./..."}`), true, ""},
	{planOf(`{"id": "b", "tool": null, "shell": "echo", "capsule": null}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "if": null, "on_error": null, "retries": null, "depends_on": null, "input": null}`), true, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": "fix it"}`), true, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": {"objective": "$a.output"}, "depends_on": ["a"]}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": 0, "on_error": "skip"}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": 100, "on_error": "continue"}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "on_error": "fail", "depends_on": ["a", "a"]}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "$a.status == 'failed' || $a.output != \"x\" && 'l' < $a.output"}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "\t$a.output>'|| &&'\n"}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "if": "'x' == \"y\""}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "input": {"x": ["$a.output", {"y": "$a.status"}, 1, null, true], "z": "$a", "w": "see $a.foo"}}`), true, ""},
	{planOf(`{"id": "b c", "tool": "notes"}`), true, ""},
	{planOf(`{"id": "b", "shell": "echo", "input": {"ignored": true}}`), true, ""},
	// Refused by the checker for what the schema cannot see.
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["zz"]}`), true, ""},
	{planOf(`{"id": "a", "tool": "notes"}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["c"]}`, `{"id": "c", "tool": "notes", "depends_on": ["b"]}`), true, ""},
	{planOf(`{"id": "b", "tool": "notes", "input": {"x": "$zz.output"}}`), true, ""},
	{planOf(`{"id": "b", "shell": "bash -c 'unclosed"}`), true, ""},
	// Refused by both: the document and the plan object.
	{`[]`, false, ""},
	{`"plan"`, false, ""},
	{`{"steps": []}`, false, ""},
	{`{"id": null, "steps": []}`, false, ""},
	{`{"id": 5, "steps": []}`, false, ""},
	{`{"id": "", "steps": []}`, false, ""},
	{`{"id": "p"}`, false, ""},
	{`{"id": "p", "steps": null}`, false, ""},
	{`{"id": "p", "steps": {}}`, false, ""},
	{`{"id": "p", "steps": ["a"]}`, false, ""},
	{`{"id": "p", "steps": [], "step": []}`, false, ""},
	{`{"$schema": "x", "id": "p", "steps": []}`, false, ""},
	// Refused by both: steps.
	{planOf(`{"tool": "notes"}`), false, ""},
	{planOf(`{"id": null, "tool": "notes"}`), false, ""},
	{planOf(`{"id": "", "tool": "notes"}`), false, ""},
	{planOf(`{"id": 3, "tool": "notes"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends-on": ["a"]}`), false, ""},
	{planOf(`{"id": "b"}`), false, ""},
	{planOf(`{"id": "b", "tool": null}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "shell": "echo"}`), false, ""},
	{planOf(`{"id": "b", "shell": "echo", "capsule": "worker", "input": "x"}`), false, ""},
	{planOf(`{"id": "b", "tool": 5}`), false, ""},
	{planOf(`{"id": "b", "shell": ["echo"]}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "input": [1]}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "input": 2}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": "a"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": [1]}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "if": true}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "on_error": "abort"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "on_error": 1}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": -1}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": 101}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": 1.5}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": "2"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "retries": 1e2}`), true, "JSON Schema compares numbers by value: 1e2 is the integer 100"},
	{planOf(`{"id": "b", "tool": "notes", "retries": 2.0}`), true, "JSON Schema compares numbers by value: 2.0 is the integer 2"},
	{planOf(`{"id": "b", "capsule": "worker"}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": null}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": {}}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": {"objective": 3}}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": {"objectve": "x"}}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": {"objective": "x", "extra": 1}}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "input": ["x"]}`), false, ""},
	// Refused by both, for rules the schema holds in part.
	{planOf(`{"id": "b", "shell": ""}`), false, ""},
	{planOf(`{"id": "b", "shell": " \t "}`), false, ""},
	{planOf(`{"id": "b", "tool": "submit-plan"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "if": ""}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "if": "  "}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "$a.status"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "$a.status == failed"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "$a.output >= '3'"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "($a.status == 'x')"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "$a.status == 'x' &&"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "if": "$a.foo == 'x'"}`), false, ""},
	{planOf(`{"id": "b", "tool": "notes", "depends_on": ["a"], "input": {"x": ["$a.outptu"]}}`), false, ""},
	{planOf(`{"id": "b", "capsule": "worker", "depends_on": ["a"], "input": "$a.stat"}`), false, ""},
}

// TestSchemaDrift runs every planDrift case through the checker and the
// schema: a schema-level refusal fails the schema, an accepted plan passes
// it, and each case gets the verdict it states.
func TestSchemaDrift(t *testing.T) {
	s := compileSchema(t, planSchemaPath)
	for _, tc := range planDrift {
		codes, refused := checkerCodes(tc.src)
		verr, ok := validate(t, s, []byte(tc.src))
		if !ok {
			t.Errorf("%s: not JSON", tc.src)
			continue
		}
		valid := verr == nil
		if valid != tc.valid {
			t.Errorf("%s: schema says valid=%v, the case says %v (checker: %v)\n%v", tc.src, valid, tc.valid, codes, verr)
		}
		if tc.gap != "" {
			if !refused || !valid {
				t.Errorf("%s: listed as a gap (%s), but checker refused=%v, schema valid=%v", tc.src, tc.gap, refused, valid)
			}
			continue
		}
		switch {
		case hasAny(codes, schemaCodes) && valid:
			t.Errorf("%s: checker refuses with %v, schema accepts", tc.src, codes)
		case !refused && !valid:
			t.Errorf("%s: checker accepts (%v), schema refuses: %v", tc.src, codes, verr)
		case refused && !valid && !hasAny(codes, schemaCodes) && !hasAny(codes, partialCodes):
			t.Errorf("%s: schema refuses, checker refuses only with %v", tc.src, codes)
		}
	}
}
