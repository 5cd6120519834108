package ir_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/planc/planc/ast"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
)

// parse parses a plan with id "p" whose steps are the given JSON objects.
func parse(t testing.TB, steps ...string) *ast.Plan {
	t.Helper()
	src := `{"id": "p", "steps": [` + strings.Join(steps, ",\n") + `]}`
	p, diags := parser.ParsePlan([]byte(src), parser.DefaultLimits())
	if len(diags) > 0 {
		t.Fatalf("parse: %v\n%s", diags, src)
	}
	return p
}

// lower parses and lowers, failing the test on an error.
func lower(t testing.TB, steps ...string) *ir.Program {
	t.Helper()
	prog, err := ir.Lower(parse(t, steps...))
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	return prog
}

func diff(t testing.TB, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}
