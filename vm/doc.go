// Package vm is the last stage of planc's one-way flow
// (bytes → ast → check → ir → vm): it runs an *ir.Program against a Host and
// returns the report of docs/plans.md, "The report".
//
// Run owns the ready queues, plan-order dispatch, the single tool lane, the
// concurrency of shell and capsule steps, conditions, reference resolution,
// retries, on_error, cancellation, the report, its summary, and the trace
// events plan_start, plan_step_start, plan_step and plan_end. The Host
// dispatches the work: a tool call, a shell command line already split into
// words, a capsule spawn; it may refuse a step before dispatch, and it
// receives the trace events. Runtimes embed this package; `planc run` is one
// host, the tests' fake host (package vmtest) another. docs/vm.md is the
// contract for embedders.
//
// A redrive (S25–S28) is a Run with Options.Prior: the host supplies what
// the earlier runs of the plan recorded, one Prior per step, and Run
// decides what is reused (the recorded successes) and what runs again.
//
// One Run's state lives in the Run call; the Program is only read, so one
// Program may be run many times and concurrently. Every goroutine Run starts
// has ended when it returns.
package vm
