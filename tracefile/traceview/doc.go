// Package traceview renders what package tracefile reads back for
// `planc trace` (docs/cli.md, docs/trace.md): the steps table and the
// session tree as text or JSON (WriteSteps, WriteShow, WriteStepsJSON,
// WriteShowJSON), the list of a project's sessions (ListSessions,
// WriteList), and a plan's run drawn as a graph or an HTML timeline
// (WriteGraph, WriteHTML); and where planc trace finds a session (FindHome,
// Locate, OpenPlan). Every text it writes passes through tracefile.Clean.
// Most of its tests are tracefile's (package tracefile_test), which share
// their trace fixtures.
package traceview
