// Package update holds the -update flag of planc's tests, and nothing else,
// so that every test package can register it: `go test ./... -update` hands
// the flag to every test binary, and a binary that does not define it fails.
// Packages with golden files read it through testkit.Update; the others
// import this package for its flag alone (their update_test.go), which they
// can do without an import cycle since it imports nothing of planc.
//
// It is for tests only and sits outside planc's flow.
package update

import "flag"

// Update is true under `go test -update`: golden files and the documents'
// generated sections are rewritten instead of compared with (review the
// diff before committing).
var Update = flag.Bool("update", false, "rewrite golden files and marked sections instead of comparing with them")
