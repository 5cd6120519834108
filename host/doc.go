// Package host is `planc run`'s real vm.Host: the runtime around the VM at
// the end of planc's one-way flow (bytes → ast → check → ir → vm(host)).
// The VM decides what runs when; host makes it happen on this machine and
// keeps the records a person reads afterwards.
//
// This package is the run and the vm.Host adapter. Run takes a plan that
// check.Load accepted and its capsule manifest (DefaultManifest without
// --capsule; the caller admits it with Admit first): it refuses a plan
// with shell or capsule steps when no delegated cgroup v2 scope can be had
// (E-RUN-012, before anything is written), opens the session directory,
// writes the plan to plans/plan-<n>.json read-only and runs what it reads
// back under the plan's lock, keeps every attempt's output and the report
// (S24), and closes everything with session_end. With Config.RedrivePlan it
// redrives a plan of a session instead (S25–S28, redrive.go). RunCapsule
// is the same for a sub-capsule's `planc __capsule`.
//
// The rest lives in rooms of its own, each a package:
//
//   - host/capenv: the capsule's environment (manifest, built-in tool
//     schemas, MCP tools once listed), which every caller builds with
//     capenv.New and Run, the redrive and a sub-capsule check plans in.
//   - host/session: the session directory (session.json, the plan files
//     and their locks, trace.jsonl and its writer, every attempt's whole
//     output under outputs/ with its output index, the kept reports,
//     notes.md) and the Task, one plan in its session, which the other
//     rooms are handed; the vocabularies of how runs end.
//   - host/tools: the built-in tools and the MCP servers of the
//     manifest's tools.mcp, started once per run in the plan's scope.
//   - host/capsule: sub-capsules: the roost, the launcher that spawns a
//     capsule step's child `planc __capsule` in a leaf cgroup of the
//     plan's scope (docs/capsules.md), and the child's side.
//   - host/sandbox: shell steps, one leaf cgroup per step in the plan's
//     scope, the protected set held read-only by the kernel; its cgroup
//     v2 operations in host/sandbox/cgroups, the shim's child side in
//     host/sandbox/shim.
//   - host/protect: the refusals of one step (read_only and hooks), each
//     with its trace line, and the built-in tools' race-free writes.
//
// What a run protects (protected.go) is taken once, at plan start: the
// whole session directory, every read_only path, the roost, the --capsule
// manifest, the files the allowed shell commands resolve to, and what a
// spawning capsule protects. The kernel holds it read-only for steps and
// capsule commands, the built-in tools check what they open against it,
// and the refusals refuse a step that names it (docs/security.md).
package host
