// Package parser turns bytes into planc's AST: a plan document into
// *ast.Plan (ParsePlan), any JSON document into a positioned *ast.Value
// (ParseJSON, used for capsule manifests), and an `if` condition into an
// ast.Cond (ParseCond). It is the second stage of the flow: it imports lexer
// and ast, and reports only what stops a document from having a tree (JSON
// syntax, invalid UTF-8, trailing data, duplicate keys, the limits of
// semantics S5). Everything else about a plan's meaning is check's work.
package parser
