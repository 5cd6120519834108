package ast

import (
	"strings"
	"time"
)

// DefaultManifestVersion is a capsule's version when its manifest does not
// give one (docs/capsules.md).
const DefaultManifestVersion = "0.1.0"

// The events a hook binds to (Hook.On).
const (
	HookOnToolCall = "on-tool-call" // matches tool names
	HookOnShell    = "on-shell"     // matches the commands a shell step runs
)

// The commit policies of a hook (Hook.CommitPolicy).
const (
	// CommitDeny refuses the matched step (trace line call_denied).
	CommitDeny = "deny"
	// CommitAllow lets the matched step through; it never refuses, and it
	// does not exempt the step from another hook's deny.
	CommitAllow = "allow"
)

// BuiltinTools returns the names of the runtime's built-in tools, sorted.
// The slice is fresh: callers may keep or change it.
func BuiltinTools() []string {
	return []string{"compose", "notes", "read-file", "repo-files", "write-file"}
}

// HookEvents returns the values Hook.On may take, in documentation order.
func HookEvents() []string { return []string{HookOnToolCall, HookOnShell} }

// CommitPolicies returns the values Hook.CommitPolicy may take.
func CommitPolicies() []string { return []string{CommitDeny, CommitAllow} }

// Manifest is one parsed capsule manifest (docs/manifest.md).
// A span is the zero Span when its field was absent. Typed fields hold only
// values the parser accepted: a refused value is left out, so a manifest
// with errors must not be used to run anything.
type Manifest struct {
	Span Span // the manifest object

	// Name is the capsule's namespaced name, e.g. "local/planner".
	Name     string
	NameSpan Span
	// Version is x.y.z; DefaultManifestVersion when absent (VersionSpan is
	// then zero).
	Version     string
	VersionSpan Span

	Capabilities Capabilities
	Tools        Tools
	// Hooks are in manifest order; Hook.Index is the position in "hooks",
	// the number a call_denied trace line names.
	Hooks     []Hook
	HooksSpan Span // the "hooks" list
	// Entrypoint is nil when the manifest has none (a top-level --capsule
	// needs none; a capsule in the roost does).
	Entrypoint *Entrypoint
}

// NameAt is a string from a manifest with the span of its JSON string
// (quotes included).
type NameAt struct {
	Name string
	Span Span
}

// Names returns the strings of ns, in order, as a fresh slice.
func Names(ns []NameAt) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

// DurationAt is a duration from a manifest: its value, the text as written
// and the span of the JSON string.
type DurationAt struct {
	D    time.Duration
	Raw  string
	Span Span
}

// Capabilities is the manifest's "capabilities" object: what the capsule is
// granted. Absent sections grant nothing.
type Capabilities struct {
	Span Span // the capabilities object

	// PlanSubmit is capabilities.plan.submit: without it the capsule has no
	// submit-plan tool and `planc run` refuses.
	PlanSubmit     bool
	PlanSubmitSpan Span

	// ShellAllow is capabilities.shell.allow: the binaries a shell step's
	// first word may be, compared exactly (semantics S14).
	ShellAllow     []NameAt
	ShellAllowSpan Span // the list
	// ShellTimeout is capabilities.shell.timeout, the bound of every shell
	// step; nil when not given (the host's default applies).
	ShellTimeout *DurationAt
	// ShellEnv is capabilities.shell.env: the variables set for shell
	// steps and a command entrypoint, over what they inherit (EnvVar), in
	// source order.
	ShellEnv     []EnvVar
	ShellEnvSpan Span // the env object

	// SpawnAllow is capabilities.spawn.allow: namespaced capsule names such
	// as "local/worker" (semantics S15).
	SpawnAllow     []NameAt
	SpawnAllowSpan Span // the list

	// ReadOnly is capabilities.filesystem.read_only: paths, relative to the
	// manifest's directory unless absolute, that no step may write under.
	ReadOnly     []NameAt
	ReadOnlySpan Span // the list
}

// Tools is the manifest's "tools" object: the capsule's tool sources.
type Tools struct {
	Span Span // the tools object

	// Builtin lists the built-in tools granted, each one of BuiltinTools().
	Builtin     []NameAt
	BuiltinSpan Span // the list
	// MCP lists the MCP servers over stdio, in source order.
	MCP     []MCPServer
	MCPSpan Span // the mcp object
}

// MCPServer is one member of tools.mcp: a server started over stdio.
type MCPServer struct {
	Name     string // the member's key
	NameSpan Span   // the key, quotes included
	Span     Span   // the server object
	// Command is the argv that starts the server: never empty, no empty word.
	Command     []string
	CommandSpan Span
	// Env is the server's "env": the variables set for it, over what it
	// inherits (EnvVar), in source order.
	Env     []EnvVar
	EnvSpan Span // the env object
}

// Hook is one element of "hooks" (docs/plans.md, "Step refusals").
type Hook struct {
	Index int  // position in the hooks list, from 0
	Span  Span // the hook object

	// On is HookOnToolCall or HookOnShell.
	On     string
	OnSpan Span
	// Match is a glob where * matches anything: a tool name for
	// on-tool-call; for on-shell, the step's words joined by single spaces
	// and each command found in them (protect.ShellCommands). Empty
	// (absent) matches every call.
	Match     string
	MatchSpan Span
	// CommitPolicy is CommitDeny or CommitAllow.
	CommitPolicy     string
	CommitPolicySpan Span
}

// Entrypoint is the manifest's "entrypoint": what a capsule spawned from the
// roost runs. Exactly one of Plan and Command is set.
type Entrypoint struct {
	Span Span // the entrypoint object

	// Plan is a plan file, relative to the manifest's directory unless
	// absolute, run as the capsule's own plan; "" when Command is set.
	Plan     string
	PlanSpan Span
	// Command is an argv that reads the objective on standard input and
	// writes the answer on standard output; nil when Plan is set.
	Command     []string
	CommandSpan Span
}

// IsCapsuleName reports whether s is a namespaced capsule name,
// namespace/name, both parts IsCapsuleNamePart: the roost keeps a capsule at
// ROOST/<namespace>/<name>.
func IsCapsuleName(s string) bool {
	ns, name, ok := strings.Cut(s, "/")
	return ok && IsCapsuleNamePart(ns) && IsCapsuleNamePart(name)
}

// IsCapsuleNamePart reports whether s may be one part of a capsule name:
// letters, digits, "_", "-" and ".", not starting with "." or "-" (so no
// "..", no hidden directory, nothing that looks like an option).
func IsCapsuleNamePart(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// IsVersion reports whether s is x.y.z: three decimal numbers without
// leading zeros (the core of a semantic version, no suffixes).
func IsVersion(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, n := range parts {
		if n == "" || (len(n) > 1 && n[0] == '0') || strings.Trim(n, "0123456789") != "" {
			return false
		}
	}
	return true
}
