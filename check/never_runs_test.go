package check_test

import (
	"strings"
	"testing"

	"github.com/planc/planc/check"
)

// TestNeverRuns: never-runs (S32) warns at a condition that can be true
// only when a dependency under on_error fail failed or was skipped, names
// the dependency and the fix, and says nothing when the condition can
// hold some other way.
func TestNeverRuns(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		want  string // the message, "" for none
	}{
		{"failed, the default", []string{
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'failed'"}`,
		}, `step "note" can run only if "check" failed, but "check" stops the plan when it fails (on_error "fail", the default), so step "note" never runs; set "on_error": "continue" on "check"`},
		{"on_error fail written", []string{
			`{"id": "check", "shell": "go test ./...", "on_error": "fail"}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'failed'"}`,
		}, `step "note" can run only if "check" failed, but "check" stops the plan when it fails (on_error "fail"), so step "note" never runs; set "on_error": "continue" on "check"`},
		{"continue", []string{
			`{"id": "check", "shell": "go test ./...", "on_error": "continue"}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'failed'"}`,
		}, ""},
		{"not success, no if", []string{
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status != 'success'"}`,
		}, `step "note" can run only if "check" failed or was skipped, but "check" stops the plan when it fails (on_error "fail", the default), so step "note" never runs; set "on_error": "continue" (or "skip") on "check"`},
		{"not success, skipped by its own if", []string{
			`{"id": "a", "tool": "notes"}`,
			`{"id": "check", "shell": "go test ./...", "depends_on": ["a"], "if": "$a.output == 'x'"}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status != 'success'"}`,
		}, ""},
		{"skipped, no if", []string{
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'skipped'"}`,
		}, `step "note" can run only if "check" was skipped, but "check" stops the plan when it fails (on_error "fail", the default), so step "note" never runs; set "on_error": "skip" on "check"`},
		{"another way to be true", []string{
			`{"id": "x", "tool": "notes", "on_error": "continue"}`,
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check", "x"], "if": "$check.status == 'failed' || $x.status == 'failed'"}`,
		}, ""},
		{"and an output", []string{
			`{"id": "x", "tool": "notes"}`,
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check", "x"], "if": "$x.output == 'y' && $check.status == 'failed'"}`,
		}, `step "note" can run only if "check" failed, but "check" stops the plan when it fails (on_error "fail", the default), so step "note" never runs; set "on_error": "continue" on "check"`},
		{"transitive dependency", []string{
			`{"id": "a", "shell": "go test ./..."}`,
			`{"id": "b", "tool": "notes", "depends_on": ["a"]}`,
			`{"id": "c", "tool": "notes", "depends_on": ["b"], "if": "'failed' == $a.status"}`,
		}, `step "c" can run only if "a" failed, but "a" stops the plan when it fails (on_error "fail", the default), so step "c" never runs; set "on_error": "continue" on "a"`},
		{"not a dependency", []string{
			`{"id": "a", "shell": "go test ./..."}`,
			`{"id": "c", "tool": "notes", "if": "$a.status == 'failed'"}`,
		}, ""},
		{"never true anyway", []string{
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'succeeded'"}`,
		}, ""},
		{"two together", []string{
			`{"id": "a", "shell": "go test ./..."}`,
			`{"id": "b", "shell": "go vet ./..."}`,
			`{"id": "n", "tool": "notes", "depends_on": ["a", "b"], "if": "$a.status == 'failed' && $b.status == $a.status"}`,
		}, `step "n" can run only if some of "a", "b" failed or were skipped, but each stops the plan when it fails (on_error "fail", the default), so step "n" never runs; set "on_error": "continue" (or "skip") on each of them`},
		{"success", []string{
			`{"id": "check", "shell": "go test ./..."}`,
			`{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'success'"}`,
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"id": "p", "steps": [` + strings.Join(tt.steps, ",\n") + `]}`
			_, diags := check.Load([]byte(src), nil)
			var got []string
			for _, d := range diags {
				if d.Code == "never-runs" {
					got = append(got, d.Message)
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("want no never-runs, got %q", got)
			case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
