// Package ir is the fourth stage of planc's one-way flow
// (bytes → ast → check → ir → vm): it lowers a *check.Plan, a plan check
// accepted, into an immutable *Program that the vm package runs, without
// checking again what check proved.
//
// A Program holds its steps by index. Each step has its dependency and
// dependent edges as int32 slices, its in-degree, its reference slots (the
// distinct $id.field references it names, found once at lowering time), its
// condition compiled to a short bytecode (Cond) that is evaluated without
// allocating, and its input lowered to a Template whose holes are the
// reference slots, so nothing walks the input at dispatch. A shell step
// keeps the words the parser split its command line into (ast.Step.Argv,
// semantics S14), and a step's kind and on_error are ast's own enums.
//
// A Program is never modified after Lower returns: it is safe to run many
// times and from many goroutines at once. Its stable text form (Dump,
// String) is what `planc dump-ir` prints; docs/ir.md describes it.
package ir
