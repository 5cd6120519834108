package ir_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/ir"
)

// planText is a plan with id "p" whose steps are the given JSON objects.
func planText(steps ...string) []byte {
	return []byte(`{"id": "p", "steps": [` + strings.Join(steps, ",\n") + `]}`)
}

// parse loads a plan with id "p" whose steps are the given JSON objects
// (check.Load, capability rules off), failing the test when it is
// refused.
func parse(t testing.TB, steps ...string) *check.Plan {
	t.Helper()
	p, diags := check.Load(planText(steps...), nil)
	if p == nil {
		t.Fatalf("refused: %v\n%s", diags, planText(steps...))
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
