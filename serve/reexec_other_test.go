//go:build !unix

package serve

import "errors"

// reexec is unix only; elsewhere shell and capsule steps are not run by
// these tests.
func reexec(string, []string) error {
	return errors.New("re-executing needs unix")
}
