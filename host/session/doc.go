// Package session is the session directory of `planc run` and `planc
// serve`: the room of host that keeps the records a person reads after a
// run. It sits beside the VM at the end of planc's one-way flow (bytes →
// ast → check → ir → vm(host)); host writes through it and tracefile reads
// what it wrote.
//
// A session directory holds session.json (Create, Open), the plan files
// under plans/ (Session.WritePlan writes plan-<n>.json read-only,
// Session.ReadPlan reads it back and refuses a file changed in between),
// their locks (Session.LockPlan, S27), the whole output of every
// dispatched attempt under outputs/ with the plan's output index
// (Task.Sink streams one as it arrives, holding its first 64 KiB;
// Task.Keep, Task.KeepFile; Task.WholeOutput reads one back for a
// reference: S20, S24), the kept reports under reports/
// (Session.KeepReport, Session.SetAsideReport), notes.md, the
// sub-capsules' delegations/ (their completion.json: WriteCompletion), and
// trace.jsonl, written one whole line per event by a Trace.
//
// A Task is one plan running in a session: the session, its trace, its
// plan file and the working directory, the one value the rest of host
// passes around instead of those four.
//
// The vocabularies of how things end are types of their own: ExitCode is
// planc's exit status, EndStatus session_end's exit_status, TaskOutcome
// task_end's outcome and DelegationOutcome a delegation line's outcome.
package session
