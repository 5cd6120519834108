// Package host is `planc run`'s real vm.Host: the runtime around the VM at
// the end of planc's one-way flow (bytes → ast → check → ir → vm(host)).
// The VM decides what runs when; this package makes it happen on this
// machine and keeps the records a person reads afterwards (runtime.md).
//
// Run takes a plan's text and a capsule manifest (DefaultManifest without
// --capsule) and does the whole of one `planc run`: it admits the manifest
// (capabilities.plan.submit), validates the plan, refuses a plan with shell
// or capsule steps when no delegated cgroup v2 scope can be had
// (E-RUN-012, before anything is written), opens the session directory
// (session.json, trace.jsonl, plans/, outputs/, notes.md), writes the plan
// to plans/plan-<n>.json read-only and runs what it reads back, and closes
// everything with session_end.
//
// While the plan runs, the host dispatches tool steps to the built-in
// tools (Builtins) or to the MCP servers of the manifest's tools.mcp
// (started once per run in the plan's scope), capsule steps to
// sub-capsules from the roost (a child planc per delegation, see
// docs/capsules.md), shell steps to host/shell (one leaf cgroup per step in
// the plan's scope, the plan files and read_only paths protected by the
// kernel), refuses steps through host/protect (read_only and hooks, with
// their trace lines), cuts any output over 64 KiB (S20) keeping the whole
// text under outputs/, and writes every event to the trace (Trace).
package host
