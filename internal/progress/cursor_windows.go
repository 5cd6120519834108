package progress

import "golang.org/x/sys/windows"

// cursorMoves reports whether the console on fd redraws with ANSI cursor
// movement: on Windows only once virtual terminal processing is on, which
// it turns on; a console that refuses gets the lines view.
func cursorMoves(fd int) bool {
	h := windows.Handle(fd)
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
