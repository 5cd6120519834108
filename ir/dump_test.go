package ir_test

import (
	"strings"
	"testing"
)

// TestDump pins the text form docs/ir.md describes, on docs/plans.md's example
// plan ("An example") with a condition, a retried step and a capsule added.
func TestDump(t *testing.T) {
	prog := lower(t,
		`{"id": "list", "tool": "repo-files", "input": {"glob": "tests/**"}}`,
		`{"id": "check", "shell": "bash -c 'cargo test --quiet'", "depends_on": ["list"], "on_error": "continue", "retries": 2}`,
		`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'failed' || $check.output > \"m\"", "input": {"body": "$check.output"}}`,
		`{"id": "fix", "capsule": "worker", "depends_on": ["note", "check"], "input": {"objective": "fix the tests"}, "on_error": "skip"}`)
	want := `plan "p"
steps 4
roots [0 "list"]

step 0 "list"
  tool "repo-files"
  deps []
  dependents [1 "check"]
  on_error fail
  retries 0
  input {"glob":"tests/**"}

step 1 "check"
  shell "bash -c 'cargo test --quiet'"
  argv ["bash" "-c" "cargo test --quiet"]
  deps [0 "list"]
  dependents [2 "note", 3 "fix"]
  on_error continue
  retries 2

step 2 "note"
  tool "notes"
  deps [1 "check"]
  dependents [3 "fix"]
  on_error fail
  retries 0
  ref @0 $check.status (step 1)
  ref @1 $check.output (step 1)
  if $check.status == 'failed' || $check.output > "m"
    const #0 "failed"
    const #1 "m"
    0 eq @0 #0
    1 jump_if_true 3
    2 gt @1 #1
  input {"body":@1}

step 3 "fix"
  capsule "worker"
  deps [2 "note", 1 "check"]
  dependents []
  on_error skip
  retries 0
  objective "fix the tests"
`
	diff(t, "dump", want, prog.String())
	var b strings.Builder
	if err := prog.Dump(&b); err != nil || b.String() != want {
		t.Errorf("Dump: %v", err)
	}
}

// TestDumpEmpty: the empty plan's text form is its header.
func TestDumpEmpty(t *testing.T) {
	diff(t, "dump", "plan \"p\"\nsteps 0\nroots []\n", lower(t).String())
}
