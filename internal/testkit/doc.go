// Package testkit holds what the tests of several packages share: reading
// a trace the way a test checks it, waiting for a trace event or for
// sub-capsules to start, skipping a test without a delegated cgroup v2
// scope and finding the scopes a run left, writing capsule manifests and
// roosts, building the planc binary once per test binary, a terminal
// screen that the live view's output is fed to (Screen), and the one
// -update flag that rewrites golden files (defined in package update, which
// the test packages that need nothing else import for it).
//
// It is for tests only: no non-test package imports it. It sits outside
// planc's flow and imports only what the tests it serves import anyway.
package testkit
