package diag

import (
	"encoding/json"
	"io"

	"github.com/planc/planc/ast"
)

// Object is one diagnostic as JSON: an element of `planc check --format
// json`'s array and of check-plan's structured content. Step is null when
// the diagnostic belongs to no step; Suggestion is left out when empty.
type Object struct {
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Col        int     `json:"col"`
	EndLine    int     `json:"end_line"`
	EndCol     int     `json:"end_col"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
	Step       *string `json:"step"`
	Suggestion string  `json:"suggestion,omitempty"`
}

// Objects converts ds to their JSON objects, in order ([] for none).
func Objects(ds []Diagnostic) []Object {
	out := make([]Object, 0, len(ds))
	for _, d := range ds {
		end := spanEnd(d.Span)
		o := Object{
			File: d.File.Name, Line: int(d.Span.Start.Line), Col: int(d.Span.Start.Col),
			EndLine: int(end.Line), EndCol: int(end.Col),
			Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
			Suggestion: d.Suggestion,
		}
		if d.Step != "" {
			o.Step = &d.Step
		}
		out = append(out, o)
	}
	return out
}

// Summary is a list of diagnostics with their counts: the structured
// content of check-plan, and of a refused submit-plan.
type Summary struct {
	Diagnostics []Object `json:"diagnostics"`
	Errors      int      `json:"errors"`
	Warnings    int      `json:"warnings"`
}

// Summarize converts ds to a Summary.
func Summarize(ds []Diagnostic) Summary {
	s := Summary{Diagnostics: Objects(ds)}
	s.Errors, s.Warnings = Count(ds)
	return s
}

// WriteJSON prints ds as one indented JSON array ([] when ds is empty).
func WriteJSON(w io.Writer, ds []Diagnostic) error {
	return Encode(w, Objects(ds))
}

// Encode writes v indented by two spaces, without escaping <, > and &
// (messages quote conditions such as a && b).
func Encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// spanEnd returns the span's end, or its start when the end was not set.
func spanEnd(sp ast.Span) ast.Pos {
	if !sp.End.IsValid() {
		return sp.Start
	}
	return sp.End
}
