//go:build !windows

package progress

// cursorMoves reports whether the terminal on fd redraws with ANSI cursor
// movement: every terminal outside Windows does (TERM=dumb aside, which
// New looks at).
func cursorMoves(fd int) bool { return true }
