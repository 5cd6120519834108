// Package shell is the runtime host's shell step machinery: the last hop
// of planc's flow for a shell step (bytes → ast → check → ir → vm → host →
// shell). When the VM calls the host's RunShell, the host hands the step's
// words here; this package resolves the first word on PATH (semantics S14),
// starts exactly that file inside a leaf cgroup of the plan's scope, merges
// its standard output and error in arrival order, enforces the step's bound
// (S20: SIGTERM, then SIGKILL after a grace period), and leaves nothing
// behind when the step's main process exits (runtime.md, "Shell steps,
// subprocesses and the cgroup scope").
//
// On Linux, OpenScope finds this process's cgroup v2 (unified and hybrid
// hosts alike) and creates the plan's scope in it; every Run gets a leaf of
// its own, the process is started directly inside it (clone3 with
// CLONE_INTO_CGROUP), and cgroup.kill ends whatever it left running. When
// the scope cannot be had, the error's text is the <why> of E-RUN-012
// (ScopeRefusal formats the whole line).
//
// Protection: a step must not modify, truncate, replace or delete the paths
// in Spec.Protect (the session's plans/ and every read_only path), while it
// can write everywhere else it could before. Landlock alone cannot say that
// (its grants are inherited by files created later, so a directory that
// contains a protected path could not hold new writable files), so
// protected steps are started by planc re-executed as a small shim
// (ShimMain, `planc __shim`) in a private mount namespace where each
// protected path is bind-mounted read-only; a Landlock domain (or, without
// Landlock, dropped capabilities) then keeps the step from unmounting or
// remounting them and from reaching the real files through another
// process's /proc/PID/root. To keep the per-step cost small, one such shim
// per scope stays up as the spawner of its protected steps; a shim per step
// remains for a request too big for the spawner's socket.
// Scope.ProtectionOff says, in one line, when protection is impossible
// here. shim_linux.go documents the mechanism and its limits,
// spawner_linux.go the spawner.
//
// Elsewhere than Linux there are no cgroups: a Scope puts each step in a
// process group of its own and signals the group, which a process that
// starts its own session escapes; nothing is protected.
package shell
