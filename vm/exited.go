package vm

import (
	"context"
	"sync/atomic"
)

// exitedKey is the context key of a capsule attempt's exited flag.
type exitedKey struct{}

// withExited returns the context a capsule attempt runs on: ctx carrying
// the flag CapsuleExited sets.
func withExited(ctx context.Context) context.Context {
	return context.WithValue(ctx, exitedKey{}, new(atomic.Bool))
}

// CapsuleExited is called by a host's SpawnCapsule, with the context it was
// given, once the sub-capsule has exited on its own, before the plan's
// cancel reached it: from then on the cancel no longer ends the attempt,
// which settles with the result SpawnCapsule returns (docs/plans.md,
// "Cancel": only a sub-capsule still running, or still starting, is ended
// with the task). A host calls it right where it decides that the
// delegation is not one the cancel ended, so that the step's error and the
// delegation's terminal line agree: a sub-capsule that completed is not
// reported as ended because the cancel landed while its answer was being
// kept. Outside a SpawnCapsule call it does nothing.
func CapsuleExited(ctx context.Context) {
	if f, ok := ctx.Value(exitedKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}

// capsuleExited reports whether CapsuleExited was called with ctx.
func capsuleExited(ctx context.Context) bool {
	f, ok := ctx.Value(exitedKey{}).(*atomic.Bool)
	return ok && f.Load()
}
