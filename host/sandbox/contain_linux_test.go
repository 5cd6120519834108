package sandbox

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// containedOrSkip prepares cmd with Contain, protecting a temporary
// directory, and skips t when the command would run without the shim.
func containedOrSkip(t *testing.T, cmd *exec.Cmd) *Contained {
	t.Helper()
	c, err := Contain(cmd, []string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Off != "" {
		t.Skipf("protection unavailable here: %s", c.Off)
	}
	return c
}

// TestContainUp: once Up has closed, a SIGTERM to the command's process
// group reaches the command itself, not only the shim, which drops what
// comes before: sent at once, it ends a command that would otherwise
// sleep for minutes (by its trap, or by the signal itself when it lands
// before the trap is set).
func TestContainUp(t *testing.T) {
	for i := range 3 {
		cmd := exec.Command("sh", "-c", "trap 'exit 7' TERM; sleep 303."+strconv.Itoa(i)+" & wait")
		c := containedOrSkip(t, cmd)
		err := cmd.Start()
		c.Started()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		<-c.Up()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Errorf("run %d: the SIGTERM sent at Up was lost", i)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			err = <-done
		}
		// The shim exits with the command's status: 7 from the trap, or
		// 128+15 from the signal.
		var ee *exec.ExitError
		if !errors.As(err, &ee) || (ee.ExitCode() != 7 && ee.ExitCode() != 128+int(syscall.SIGTERM)) {
			t.Errorf("run %d: %v; want exit 7 or 143", i, err)
		}
		if err := c.SetupErr(); err != nil {
			t.Errorf("run %d: SetupErr %v", i, err)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the sleep, if sh left it
	}
}

// TestContainSetupErr: a command the shim cannot start exits 127, and
// SetupErr says why; Up closes all the same.
func TestContainSetupErr(t *testing.T) {
	cmd := exec.Command("/nonexistent/planc-test-program")
	c := containedOrSkip(t, cmd)
	err := cmd.Start()
	c.Started()
	if err != nil {
		t.Fatal(err)
	}
	werr := cmd.Wait()
	<-c.Up()
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 127 {
		t.Errorf("exit %v; want 127", werr)
	}
	if err := c.SetupErr(); err == nil || !strings.Contains(err.Error(), "/nonexistent/planc-test-program") {
		t.Errorf("SetupErr %v; want it to name the program", err)
	}
}
