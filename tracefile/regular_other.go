//go:build !unix

package tracefile

// openNonBlock: no such open flag here; OpenRegular's check of the file's
// mode still refuses what is not a regular file.
const openNonBlock = 0
