//go:build !planctesthooks

package capsule

// spawnPause is a test hook (testhooks_on.go); planc as built for use
// has none.
func spawnPause() {}

// noRecheck is a test hook (testhooks_on.go): always false in planc as
// built for use.
func noRecheck() bool { return false }
