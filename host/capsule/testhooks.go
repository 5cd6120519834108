package capsule

// The test-only hooks of a spawn: read only by a planc built with -tags
// planctesthooks (testhooks_on.go; testkit.HookedPlancBinary), never by
// planc as built for use (testhooks_off.go).
const (
	// EnvTestSpawnPause names a directory with two FIFOs: a child opens
	// "paused" for writing and closes it (the test, reading it, knows the
	// child stands between its parent's check and its own), then reads
	// "go" to its end before it goes on.
	EnvTestSpawnPause = "PLANC_TEST_SPAWN_PAUSE"
	// EnvTestSpawnNoRecheck, set, turns the child's checks of its pins
	// off (and makes it resolve its command by path again): the control
	// that shows what the checks stop.
	EnvTestSpawnNoRecheck = "PLANC_TEST_SPAWN_NORECHECK"
)
