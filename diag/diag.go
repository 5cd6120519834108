package diag

import (
	"cmp"
	"slices"

	"github.com/planc/planc/ast"
)

// File is a document diagnostics point into: the name it is shown by (a
// path, "-" for standard input, "plan" for a plan given over MCP) and its
// text.
type File struct {
	Name string
	Src  []byte
}

// Diagnostic is a diagnostic with the document it belongs to.
type Diagnostic struct {
	File *File
	ast.Diagnostic
}

// Attach pairs each of ds with f.
func Attach(f *File, ds []ast.Diagnostic) []Diagnostic {
	out := make([]Diagnostic, len(ds))
	for i, d := range ds {
		out[i] = Diagnostic{File: f, Diagnostic: d}
	}
	return out
}

// Sort orders ds by file name, then by position, code and message as
// ast.SortDiagnostics does; ties keep their order, so the output is
// deterministic.
func Sort(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File.Name, b.File.Name), ast.CompareDiagnostics(a.Diagnostic, b.Diagnostic))
	})
}

// Failing reports whether ds makes a command fail: any error, or any
// warning when werror is set.
func Failing(ds []Diagnostic, werror bool) bool {
	for _, d := range ds {
		if d.Severity == ast.Error || werror {
			return true
		}
	}
	return false
}

// Count counts the errors and the warnings of ds.
func Count(ds []Diagnostic) (errs, warns int) {
	for _, d := range ds {
		if d.Severity == ast.Error {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}
