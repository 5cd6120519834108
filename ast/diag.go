package ast

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity says whether a diagnostic refuses the plan.
type Severity uint8

const (
	// Error refuses the plan: nothing runs.
	Error Severity = iota
	// Warning is a finding that does not refuse the plan (unless --werror).
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one finding about a plan or a manifest. An internal failure is
// a Go error, never a Diagnostic.
type Diagnostic struct {
	Span       Span
	Severity   Severity
	Code       string // stable kebab-case code, e.g. "unknown-dependency"
	Message    string // lowercase, no trailing period, ends with the fix when there is one
	Step       string // id of the step the finding belongs to, "" when none
	Suggestion string // did-you-mean replacement text, "" when none
}

// SortDiagnostics orders ds by position, then code, then message, so output is
// deterministic (CompareDiagnostics); ties keep their order.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, CompareDiagnostics)
}

// CompareDiagnostics orders two diagnostics of one document: by start, then
// end, then code, then message.
func CompareDiagnostics(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Span.Start.Offset, b.Span.Start.Offset),
		cmp.Compare(a.Span.End.Offset, b.Span.End.Offset),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Message, b.Message),
	)
}

// HasErrors reports whether any diagnostic in ds is an error.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// OneLine formats d as one line, "file:line:col: severity: message [code]":
// the first line of `planc check`'s text output and the golden files' form.
func (d Diagnostic) OneLine(file string) string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", file, d.Span.Start.Line, d.Span.Start.Col, d.Severity, d.Message, d.Code)
}
