// Package shim is the child side of the sandbox, as runc's nsexec and
// init are runc's: `planc __shim`, which the sandbox (host/sandbox)
// starts in new mount, cgroup and PID namespaces, makes the protected
// paths read-only, hides the cgroups above its own and every process
// outside (view_linux.go, ancestors_linux.go), locks itself down
// (no_new_privs, capabilities, Landlock, seccomp: lockdown_linux.go,
// seccomp_linux.go), and then runs one step, or serves as a scope's
// spawner of protected steps (spawnd_linux.go) on the wire protocol of
// spawnproto_linux.go.
//
// Config is the shim's command line, built by the sandbox (Args, Wrap)
// and parsed here (Parse): one type both ways, with one Mode. The
// guardian's mode is parsed here and served by the sandbox (Main's guard
// argument). shim_linux.go documents the mechanism and its limits.
package shim

// Command is the hidden planc subcommand that runs Main: the sandbox
// starts `SHIM Command …`.
const Command = "__shim"
