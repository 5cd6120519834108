// Package e2e holds the end-to-end tests of the planc binary: each runs
// the binary that TestMain builds once (testkit.PlancBinary) as a user
// would, in a directory of its own, so that the tests that share no state
// run side by side. The tests of planc's own code, in-process, stay in
// cmd/planc. The package has no code but these tests.
package e2e
