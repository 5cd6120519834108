// Package diag renders diagnostics for people and for tools: the text form
// `planc check` prints (a line, the source line, a caret under the span,
// columns counted in terminal cells by grapheme cluster), the JSON array
// of --format json and check-plan's structured content, and SARIF 2.1.0.
// It sits beside planc's one-way flow (bytes → ast → check → ir → vm):
// it takes the ast.Diagnostic values the parser and check return, each
// with the document it points into, and is used by cmd/planc and serve
// alike.
//
// Sort is the one order of diagnostics across documents: by file name,
// then as ast.SortDiagnostics orders one document's. The text renderer
// reads each source line once for all the diagnostics on it and keeps in
// memory only what it prints, so a minified plan with thousands of
// findings on one line renders in time linear in the input.
package diag
