package termtext

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestForTerminalOnATerminal: on a terminal (a pseudo-terminal here) the
// writers escape.
func TestForTerminalOnATerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	defer tty.Close()
	if _, ok := ForTerminal(tty).(*SafeWriter); !ok {
		t.Errorf("ForTerminal(a terminal) = %T, want *SafeWriter", ForTerminal(tty))
	}
	if _, ok := JSONForTerminal(tty).(*JSONWriter); !ok {
		t.Errorf("JSONForTerminal(a terminal) = %T, want *JSONWriter", JSONForTerminal(tty))
	}
}
