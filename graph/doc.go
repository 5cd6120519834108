// Package graph draws a lowered plan (an *ir.Program) for people: as a
// Graphviz DOT digraph (WriteDOT) or a Mermaid flowchart (WriteMermaid).
// `planc graph` is its command-line face.
//
// Both drawings show the same things: one node per step, labelled with its
// id, its kind and target, shaped and coloured by kind (tool, shell,
// capsule); a conditional step with a dashed border and its condition; an
// on_error policy other than fail with a bold border and a label line; one
// solid edge from each dependency to its dependent; and the tool lane, a
// dashed grey edge between consecutive tool steps in the order Simulate says
// they are dispatched.
//
// Simulate replays the VM's scheduling rule (semantics S17) over a program
// on the assumption that every step is dispatched and succeeds and that
// every step takes the same time; its tests run the VM itself with steps
// that take one tick each and find the same schedule, with and without
// --max-parallel. It is exported for `planc run --dry-run`, which prints
// the same schedule as text.
//
// Step ids are arbitrary strings (S4 only warns about odd ones), so every id
// is escaped for the target language, and control and bidirectional
// characters are shown as Go escapes rather than passed through.
package graph
