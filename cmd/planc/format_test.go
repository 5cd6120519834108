package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// decode parses a JSON document from planc's standard output.
func decode[T any](t *testing.T, out string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document:\n%s", out)
	}
	return v
}

func TestCheckJSON(t *testing.T) {
	inTempDir(t, map[string]string{"capsule.json": manifest, "plan.json": cargoPlan, "a.json": dupKeyPlan})
	_, ds := check.Load([]byte(cargoPlan), testCaps(t))
	dup := diagOf(t, dupKeyPlan, parser.CodeDuplicateKey, nil)
	want := []map[string]any{
		{
			"file": "a.json", "line": json.Number("1"), "col": json.Number("26"),
			"end_line": json.Number("1"), "end_col": json.Number("30"),
			"severity": "error", "code": "duplicate-key", "message": dup.Message, "step": nil,
		},
		{
			"file": "plan.json", "line": json.Number("3"), "col": json.Number("28"),
			"end_line": json.Number("3"), "end_col": json.Number("48"),
			"severity": "error", "code": "shell-not-allowed", "message": ds[0].Message, "step": "check",
		},
		{
			"file": "plan.json", "line": json.Number("4"), "col": json.Number("26"),
			"end_line": json.Number("4"), "end_col": json.Number("40"),
			"severity": "error", "code": "shell-not-allowed", "message": ds[1].Message, "step": "vet",
			"suggestion": "go",
		},
	}
	got := run(t, "", "check", "--format", "json", "--capsule", "capsule.json", "plan.json", "a.json")
	if got.Code != 1 || got.Stderr != "" {
		t.Errorf("status %d, stderr %q; want 1 and nothing", got.Code, got.Stderr)
	}
	if diff := cmp.Diff(want, decode[[]map[string]any](t, got.Stdout)); diff != "" {
		t.Errorf("--format json (-want +got):\n%s", diff)
	}
	// HTML characters stay as they are, for people reading the raw output.
	if strings.Contains(got.Stdout, `\u00`) {
		t.Errorf("--format json escapes characters:\n%s", got.Stdout)
	}
}

func TestCheckJSONUnreadable(t *testing.T) {
	inTempDir(t, map[string]string{"ok.json": validPlan})
	got := run(t, "", "check", "--format=json", "ok.json", "missing.json")
	want := result{
		Stdout: "[]\n",
		Stderr: "planc check: open missing.json: no such file or directory\n",
		Code:   2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The SARIF subset planc writes, as a consumer reads it back.
type (
	sarifOut struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			} `json:"invocations"`
			ColumnKind string           `json:"columnKind"`
			Results    []sarifResultOut `json:"results"`
		} `json:"runs"`
	}
	sarifResultOut struct {
		RuleID     string             `json:"ruleId"`
		RuleIndex  int                `json:"ruleIndex"`
		Level      string             `json:"level"`
		Message    map[string]string  `json:"message"`
		Locations  []sarifLocationOut `json:"locations"`
		Properties map[string]string  `json:"properties"`
	}
	sarifLocationOut struct {
		PhysicalLocation struct {
			ArtifactLocation map[string]string `json:"artifactLocation"`
			Region           map[string]int    `json:"region"`
		} `json:"physicalLocation"`
	}
)

func TestCheckSARIF(t *testing.T) {
	// 日本✓é😀 is 15 bytes and 6 UTF-16 code units (😀 is a surrogate pair).
	const wide = `{"id": "日本✓é😀", "steps": [], "id": "q"}`
	inTempDir(t, map[string]string{"capsule.json": manifest, "plan.json": cargoPlan, "wide.json": wide})
	_, ds := check.Load([]byte(cargoPlan), testCaps(t))
	dup := diagOf(t, wide, parser.CodeDuplicateKey, nil)

	got := run(t, "", "check", "--format", "sarif", "--capsule", "capsule.json", "wide.json", "plan.json")
	if got.Code != 1 || got.Stderr != "" {
		t.Errorf("status %d, stderr %q; want 1 and nothing", got.Code, got.Stderr)
	}
	log := decode[sarifOut](t, got.Stdout)
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-schema-2.1.0.json") {
		t.Errorf("version %q, $schema %q; want SARIF 2.1.0", log.Version, log.Schema)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	r := log.Runs[0]
	if r.Tool.Driver.Name != "planc" || r.ColumnKind != "utf16CodeUnits" {
		t.Errorf("driver %q, columnKind %q", r.Tool.Driver.Name, r.ColumnKind)
	}
	if len(r.Invocations) != 1 || !r.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations %+v, want one successful", r.Invocations)
	}
	// Every rule of check and every parser code is described.
	docs := map[string]string{}
	for _, rule := range r.Tool.Driver.Rules {
		if _, dup := docs[rule.ID]; dup {
			t.Errorf("rule %q listed twice", rule.ID)
		}
		docs[rule.ID] = rule.ShortDescription.Text
	}
	for _, rule := range check.Rules() {
		if docs[rule.Code] != rule.Doc {
			t.Errorf("rule %q: shortDescription %q, want %q", rule.Code, docs[rule.Code], rule.Doc)
		}
	}
	for _, c := range parser.Codes() {
		if docs[c.Code] != c.Doc {
			t.Errorf("parser code %q: shortDescription %q, want %q", c.Code, docs[c.Code], c.Doc)
		}
	}
	for i, res := range r.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(r.Tool.Driver.Rules) || r.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d does not name rule %q", i, res.RuleIndex, res.RuleID)
		}
		r.Results[i].RuleIndex = 0
	}
	loc := func(uri string, region map[string]int) []sarifLocationOut {
		l := make([]sarifLocationOut, 1)
		l[0].PhysicalLocation.ArtifactLocation = map[string]string{"uri": uri}
		l[0].PhysicalLocation.Region = region
		return l
	}
	want := []sarifResultOut{
		{
			RuleID: "shell-not-allowed", Level: "error", Message: map[string]string{"text": ds[0].Message},
			Locations: loc("plan.json", map[string]int{
				"startLine": 3, "startColumn": 28, "endLine": 3, "endColumn": 48,
				"byteOffset": strings.Index(cargoPlan, `"cargo`), "byteLength": 20,
			}),
			Properties: map[string]string{"step": "check"},
		},
		{
			RuleID: "shell-not-allowed", Level: "error", Message: map[string]string{"text": ds[1].Message},
			Locations: loc("plan.json", map[string]int{
				"startLine": 4, "startColumn": 26, "endLine": 4, "endColumn": 40,
				"byteOffset": strings.Index(cargoPlan, `"gp`), "byteLength": 14,
			}),
			Properties: map[string]string{"step": "vet", "suggestion": "go"},
		},
		{
			RuleID: "duplicate-key", Level: "error", Message: map[string]string{"text": dup.Message},
			Locations: loc("wide.json", map[string]int{
				"startLine": 1, "startColumn": 31, "endLine": 1, "endColumn": 35,
				"byteOffset": 39, "byteLength": 4,
			}),
		},
	}
	if diff := cmp.Diff(want, r.Results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestCheckSARIFUnreadable(t *testing.T) {
	inTempDir(t, map[string]string{"a.json": dupKeyPlan})
	got := run(t, "", "check", "--format", "sarif", "a.json", "missing.json")
	if got.Code != 2 {
		t.Errorf("status %d, want 2", got.Code)
	}
	log := decode[map[string]any](t, got.Stdout)
	inv := log["runs"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	want := map[string]any{
		"executionSuccessful": false,
		"toolExecutionNotifications": []any{map[string]any{
			"level":   "error",
			"message": map[string]any{"text": "open missing.json: no such file or directory"},
		}},
	}
	if diff := cmp.Diff(want, inv); diff != "" {
		t.Errorf("invocation (-want +got):\n%s", diff)
	}
	if n := len(log["runs"].([]any)[0].(map[string]any)["results"].([]any)); n != 1 {
		t.Errorf("%d results, want a.json's one", n)
	}
}
