package check_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// genPlan returns a plan of n steps in which each step (from the third on)
// has two dependencies, an if over both, and a reference in its input: the
// issue's benchmark shape. Dependencies reach back up to 50 steps, so the
// graph is not a simple chain.
func genPlan(n int) []byte {
	var b strings.Builder
	b.Grow(n * 200)
	b.WriteString(`{"id": "generated", "steps": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i < 2 {
			fmt.Fprintf(&b, `{"id": "s%d", "tool": "notes", "input": {"body": "start %d"}}`, i, i)
			continue
		}
		a, c := i-1, i-2-(i*7)%min(i-1, 49)
		fmt.Fprintf(&b, `{"id":"s%d","tool":"notes","depends_on":["s%d","s%d"],"if":"$s%d.status == 'success' || $s%d.status != 'skipped'","input":{"body":"$s%d.output"}}`,
			i, a, c, a, c, c)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

func TestGeneratedPlanIsClean(t *testing.T) {
	src := genPlan(500)
	plan, diags := parser.ParsePlan(src, parser.DefaultLimits())
	diags = append(diags, check.Check(plan, &check.Capabilities{Tools: []string{"notes"}})...)
	if len(diags) != 0 {
		t.Fatalf("generated plan has diagnostics: %v", diags[0])
	}
}

// BenchmarkCheck measures parse+check of generated plans beside
// encoding/json.Unmarshal of the same bytes into any (the peer).
func BenchmarkCheck(b *testing.B) {
	caps := &check.Capabilities{Tools: []string{"notes"}}
	for _, n := range []int{1_000, 10_000, 100_000} {
		src := genPlan(n)
		// One untimed run before each loop puts the collector's heap goal
		// in its steady state, as bench/'s BenchmarkParse does: otherwise
		// the 100k case, run only a few times, carries the heap's growth
		// from the testing package's runtime.GC in its average.
		b.Run(fmt.Sprintf("%dk/planc-check", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			parseCheck := func() {
				plan, diags := parser.ParsePlan(src, parser.DefaultLimits())
				diags = append(diags, check.Check(plan, caps)...)
				if len(diags) != 0 {
					b.Fatal(diags[0])
				}
			}
			parseCheck()
			b.ReportAllocs()
			for b.Loop() {
				parseCheck()
			}
		})
		b.Run(fmt.Sprintf("%dk/encoding-json", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			unmarshal := func() {
				var v any
				if err := json.Unmarshal(src, &v); err != nil {
					b.Fatal(err)
				}
			}
			unmarshal()
			b.ReportAllocs()
			for b.Loop() {
				unmarshal()
			}
		})
	}
}

// benchSchemas are MCP-style input schemas for BenchmarkToolInput:
// required fields, additionalProperties false, enums, a nested object
// through $ref, a list, a pattern.
var benchSchemas = map[string]json.RawMessage{
	"search": json.RawMessage(`{"type": "object", "properties": {"query": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "minimum": 1},
		"mode": {"enum": ["exact", "fuzzy", "regex"]}, "tags": {"type": "array", "items": {"type": "string"}}, "filters": {"$ref": "#/$defs/filters"}},
		"required": ["query"], "additionalProperties": false,
		"$defs": {"filters": {"type": "object", "properties": {"lang": {"type": "string"}, "since": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}},
			"required": ["lang"], "additionalProperties": false}}}`),
	"deploy": json.RawMessage(`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
		"properties": {"service": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"}, "env": {"enum": ["staging", "production"]}, "replicas": {"type": "integer"}},
		"required": ["service", "env"], "additionalProperties": false}`),
}

// genToolPlan returns a plan of n MCP tool steps, each (from the second
// on) with a reference to the step before it in a string field.
func genToolPlan(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"id": "tools", "steps": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		prev := fmt.Sprintf("$s%d.output", max(i-1, 0))
		if i == 0 {
			prev = "planc"
		}
		if i%2 == 0 {
			dep := ""
			if i > 0 {
				dep = fmt.Sprintf(`, "depends_on": ["s%d"]`, i-1)
			}
			fmt.Fprintf(&b, `{"id": "s%d", "tool": "search"%s, "input": {"query": %q, "limit": 10, "mode": "fuzzy", "tags": ["go", "plans"], "filters": {"lang": "go", "since": "2024-01-01"}}}`, i, dep, prev)
		} else {
			fmt.Fprintf(&b, `{"id": "s%d", "tool": "deploy", "depends_on": ["s%d"], "input": {"service": "api-%d", "env": %q, "replicas": 3}}`, i, i-1, i, prev)
		}
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// BenchmarkToolInput measures checking a 1,000-step plan of MCP tool steps
// with the tools' input schemas (tool-input compiles each once per check
// and holds every step to its tool's) against the same check without
// them, where tool-input has nothing to do: the check alone, and parsing
// and checking as planc check does.
func BenchmarkToolInput(b *testing.B) {
	src := genToolPlan(1000)
	plan, ds := parser.ParsePlan(src, parser.DefaultLimits())
	if len(ds) > 0 {
		b.Fatal(ds[0])
	}
	without := &check.Capabilities{Tools: []string{"deploy", "search"}}
	with := without.WithSchemas(benchSchemas)
	if ds := check.Check(plan, with); len(ds) > 0 {
		b.Fatalf("the plan is not clean: %v", ds[0])
	}
	for _, c := range []struct {
		name string
		caps *check.Capabilities
	}{{"without-schemas", without}, {"with-schemas", with}} {
		b.Run("check/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check.Check(plan, c.caps)
			}
		})
		b.Run("parse+check/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				p, _ := parser.ParsePlan(src, parser.DefaultLimits())
				check.Check(p, c.caps)
			}
		})
	}
}
