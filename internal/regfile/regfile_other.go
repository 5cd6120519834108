//go:build !unix

package regfile

// No such open flags here: Open's check of the file's mode still refuses
// what is not a regular file, and OpenNoFollow's callers refuse a link
// themselves.
const (
	nonBlock = 0
	noFollow = 0
)
