// Package cgroups holds the sandbox's cgroup v2 file operations, as
// runc's libcontainer/cgroups does for runc: finding this process's cgroup
// (OwnDir), checking that it is delegated (CheckDelegated), making a
// child that can take processes and be killed as a whole (MakeChild),
// signalling, killing and waiting for a cgroup to empty (Signal, Kill,
// WaitEmpty), and removing a tree of cgroups (Remove).
//
// A plan's scope carries records in extended attributes (who made it, its
// guardian, when its planc was first found gone); Sweep removes the
// scopes whose planc and guardian are both gone, and RemoveScope the
// scope a redrive's earlier run left. The scope itself, its guardian and
// its leaves are the sandbox's (host/sandbox).
//
// Elsewhere than Linux there is no cgroup v2: OwnDir fails and
// RemoveScope does nothing.
package cgroups
