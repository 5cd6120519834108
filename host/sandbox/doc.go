// Package sandbox is the runtime host's sandbox for the processes a plan
// starts — shell steps, MCP servers, sub-capsules — laid out as runc lays
// out libcontainer: this package is the parent's side (the Scope, the
// guardian, the spawner's client, starting processes and servers);
// package cgroups (host/sandbox/cgroups) holds the cgroup v2 file
// operations, the scope records and the sweep; package shim
// (host/sandbox/shim) is the child's side, `planc __shim`: its command
// line (shim.Config, built here and parsed there), the mount view, the
// lockdown and the spawn daemon with its wire protocol.
//
// It is the last hop of planc's flow for a shell step (bytes → ast →
// check → ir → vm → host → sandbox). When the VM calls the host's RunShell, the host hands the step's
// words here; this package resolves the first word on PATH (semantics S14),
// starts exactly that file inside a leaf cgroup of the plan's scope, merges
// its standard output and error in arrival order, enforces the step's bound
// (S20: SIGTERM, then SIGKILL after a grace period), and leaves nothing
// behind when the step's main process exits.
//
// On Linux, OpenScope finds this process's cgroup v2 (unified and hybrid
// hosts alike) and creates the plan's scope in it; every Run gets a leaf of
// its own, the process is started directly inside it (clone3 with
// CLONE_INTO_CGROUP), and cgroup.kill ends whatever it left running. When
// the scope cannot be had, the error's text is the <why> of E-RUN-012
// (ScopeRefusal formats the whole line).
//
// Nothing outlives planc: OpenScope starts a guardian beside each scope
// (`planc __shim -cgroup SCOPE -guard`, guard_linux.go) holding a lifeline
// pipe from planc; when planc dies without closing the scope, the
// guardian lets the sub-capsules wind down (7 s at most), kills the whole
// scope and removes it. Before making a scope, OpenScope sweeps the scopes
// beside it whose planc and guardian are both gone (cgroups.Sweep).
//
// Protection: a step must not modify, truncate, replace or delete the paths
// in Spec.Protect (the host's protected set: the session directory, every
// read_only path, the roost, the capsule manifest, the files the allowed
// commands resolved to), nor
// undo that, nor leave the plan's scope, while it can write everywhere else
// it could before. Protected steps are started by planc re-executed as a
// small shim (ShimMain, `planc __shim`) in new mount, cgroup and PID
// namespaces (and, when planc is not root, an unprivileged user namespace
// of its own): each protected path is bind-mounted read-only, the step
// sees its scope's cgroups read-only and no cgroup above, a /proc of its
// own PID namespace and no process outside it; then the shim drops every
// capability but root's file-access ones from every set, sets
// no_new_privs, enters a Landlock domain where the kernel has Landlock,
// and installs a seccomp filter denying the mount API, namespaces and a
// few kernel surfaces. To keep the per-step cost small, one such shim per
// scope stays up as the spawner of its protected steps (process 1 of their
// PID namespace); a shim per step remains for a request too big for the
// spawner's socket, and Contain runs a capsule's command entrypoint
// through one. Whether this kernel and user allow it is learnt once per
// process; Scope.ProtectionOff says, in one line, when they do not.
// shim/shim_linux.go documents the mechanism and its limits,
// spawner_linux.go the spawner, shim/seccomp_linux.go the filter;
// docs/security.md is the threat model and the attack classes with the
// tests that pin them.
//
// Elsewhere than Linux there are no cgroups: a Scope puts each step in a
// process group of its own and signals the group, which a process that
// starts its own session escapes; nothing is protected.
package sandbox
