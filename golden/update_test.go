// Package golden holds planc's golden-file tests across the stages: plan in,
// diagnostics / IR text / report out. `go test ./golden -update` rewrites the
// expected files; review the diff before committing.
package golden

import "flag"

var update = flag.Bool("update", false, "rewrite golden files")
