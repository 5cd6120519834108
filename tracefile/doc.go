// Package tracefile reads what `planc run` leaves behind for people to
// read afterwards: a session's trace.jsonl (docs/trace.md) and its
// session directory, following each delegation into the child session
// directory it left under delegations/<delegation id>/, and what a run
// keeps beside the trace (outputs/ and reports/). `planc trace` is its
// command-line face: Session.StepLogs for `logs`, Session.Report for
// `report`; the other views (steps, show, list, graph, html) are rendered
// by package tracefile/traceview.
//
// Reading is forgiving by design, because a trace is most wanted when
// something went wrong: a last line cut short, a torn line (its writer
// died mid-write, and the next line may be glued on), a line that is not JSON,
// an unknown event, a missing session.json or delegation directory all
// become Notes, and the rest is still read and shown. Nothing here panics
// on any input.
//
// Read parses the lines; FromEvents groups them into a Session (its runs,
// plans, step attempts, tasks and delegations); Open does both for a
// directory or file and follows the delegations.
//
// The names of what a run keeps beside the trace (S24) and the S20 cut
// are the session directory's format, in internal/sessionfmt, which the
// writer (host/session) imports too. It reads a plan back for a redrive (S25–S28): ReadPlan gives
// a PlanRecord of every run of plan n, whose Prior is the VM's
// Options.Prior.
package tracefile
