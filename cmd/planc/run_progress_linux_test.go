package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-runewidth"
	"golang.org/x/sys/unix"

	"github.com/planc/planc/internal/testkit"
)

// openPTY returns a pseudo-terminal's master and slave, the slave cols
// columns wide and rows high.
func openPTY(t *testing.T, cols, rows int) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	ws := &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, ws); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// runOnPTY runs planc run args in dir with standard error on a
// pseudo-terminal of cols×rows and TERM term, and returns its exit status,
// standard output, and everything the terminal received.
func runOnPTY(t *testing.T, dir string, cols, rows int, term string, args ...string) (int, string, string) {
	t.Helper()
	cmd := plancCmd(t, dir, args...)
	cmd.Env = append(os.Environ(), "TERM="+term)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	code, screen := waitOnPTY(t, cmd, cols, rows, func(slave *os.File) { cmd.Stderr = slave })
	return code, stdout.String(), screen
}

// waitOnPTY runs cmd, which attach gives the slave of a pseudo-terminal
// of cols×rows, and returns its exit status and everything the terminal
// received.
func waitOnPTY(t *testing.T, cmd *exec.Cmd, cols, rows int, attach func(slave *os.File)) (int, string) {
	t.Helper()
	master, slave := openPTY(t, cols, rows)
	defer master.Close()
	attach(slave)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the command has exited
		got <- b
	}()
	code := exitCode(t, cmd.Wait())
	return code, string(<-got)
}

// widthsPlan has ids and an error longer than a narrow terminal, and a
// fail-stop after which two steps never run.
const widthsPlan = `{"id": "widths", "steps": [
  {"id": "list-every-go-file-under-the-source-tree", "tool": "repo-files", "input": {"glob": "src/**/*.go"}},
  {"id": "read-a-file-that-is-not-there", "tool": "read-file", "input": {"path": "a-file-whose-name-is-long-enough-to-overflow-a-narrow-pane.txt"}},
  {"id": "write-a-note-after-the-read", "tool": "notes", "depends_on": ["read-a-file-that-is-not-there"], "input": {"body": "x"}},
  {"id": "c", "tool": "notes", "depends_on": ["list-every-go-file-under-the-source-tree"], "input": {"body": "x"}}
]}`

// TestRunProgressWidths: the live view at 40, 80 and 200 columns (and in
// a pane five rows high) never writes a line as wide as the pane, redraws
// in place so that exactly one drawing is left on the screen, shows the
// rows in plan order and the steps after the fail-stop as not run.
func TestRunProgressWidths(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", widthsPlan, "src/a.go", "")
	tests := []struct {
		cols, rows int
		want       []string
	}{
		{40, 30, []string{
			`plan "widths" failed: 4 steps, 2 settl…`,
			"  list-every-g…  tool     success 0.0s",
			"  read-a-file-…  tool     failed 0.0s:…",
			"  write-a-note…  tool     not run",
			"  c              tool     not run",
		}},
		{80, 30, []string{
			`plan "widths" failed: 4 steps, 2 settled, 2 not run`,
			"  list-every-go-file-under-…  tool     success 0.0s",
			"  read-a-file-that-is-not-t…  tool     failed 0.0s: read-file: open a-file-who…",
			"  write-a-note-after-the-re…  tool     not run",
			"  c                           tool     not run",
		}},
		{200, 30, []string{
			`plan "widths" failed: 4 steps, 2 settled, 2 not run`,
			"  list-every-go-file-under-the-so…  tool     success 0.0s",
			"  read-a-file-that-is-not-there     tool     failed 0.0s: read-file: open a-file-whose-name-is-long-enough-to-overflow-a-narrow-pane.txt: no such file or directory",
			"  write-a-note-after-the-read       tool     not run",
			"  c                                 tool     not run",
		}},
		{80, 5, []string{
			`plan "widths" failed: 4 steps, 2 settled, 2 not run`,
			"  read-a-file-that-is-not-t…  tool     failed 0.0s: read-file: open a-file-who…",
			"  write-a-note-after-the-re…  tool     not run",
			"  … 2 more steps: 1 settled, 1 not started",
		}},
	}
	for _, tt := range tests {
		code, stdout, out := runOnPTY(t, dir, tt.cols, tt.rows, "xterm-256color", "plan.json")
		if code != 1 || !strings.Contains(stdout, `"plan_id": "widths"`) {
			t.Fatalf("%dx%d: exit %d, stdout %s", tt.cols, tt.rows, code, stdout)
		}
		// The view ends with its last erase-below; the summary line (S21)
		// follows it, planc's message rather than the view's.
		end := strings.LastIndex(out, "\x1b[J") + len("\x1b[J")
		out, summary := out[:end], out[end:]
		if want := "Plan 'widths': 4 steps, 1 succeeded, 1 failed, 0 skipped\r\n"; summary != want {
			t.Errorf("%dx%d: after the view %q, want the summary %q", tt.cols, tt.rows, summary, want)
		}
		s := &testkit.Screen{Cols: tt.cols}
		s.Feed(t, out)
		if s.Wrapped > 0 || s.Escapes == 0 {
			t.Errorf("%dx%d: %d lines wrapped, %d escape sequences:\n%q", tt.cols, tt.rows, s.Wrapped, s.Escapes, out)
		}
		for _, l := range s.Lines {
			if len(l) >= tt.cols {
				t.Errorf("%dx%d: a line of %d cells: %q", tt.cols, tt.rows, len(l), string(l))
			}
		}
		if diff := cmp.Diff(tt.want, s.Text()); diff != "" {
			t.Errorf("%dx%d: the screen (-want +got):\n%s\nraw:\n%q", tt.cols, tt.rows, diff, out)
		}
	}
}

// TestRunProgressDumb: with TERM=dumb the terminal gets the lines view:
// no escape sequence at all, and no line as wide as the pane.
func TestRunProgressDumb(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", widthsPlan, "src/a.go", "")
	for _, args := range [][]string{{"plan.json"}, {"--progress", "plan.json"}} {
		code, _, out := runOnPTY(t, dir, 40, 30, "dumb", args...)
		if code != 1 {
			t.Fatalf("%q: exit %d: %q", args, code, out)
		}
		if strings.ContainsRune(out, 0x1b) {
			t.Errorf("%q: TERM=dumb got an escape sequence:\n%q", args, out)
		}
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(out, "\r\n", "\n"), "\n"), "\n")
		// The last line is the summary (S21), planc's message rather than
		// the view's.
		if summary := lines[len(lines)-1]; summary != "Plan 'widths': 4 steps, 1 succeeded, 1 failed, 0 skipped" {
			t.Errorf("%q: the last line %q is not the summary", args, summary)
		}
		lines = lines[:len(lines)-1]
		for _, l := range lines {
			if runewidth.StringWidth(l) >= 40 {
				t.Errorf("%q: a line of %d cells: %q", args, runewidth.StringWidth(l), l)
			}
		}
		if len(lines) != 8 || !strings.HasSuffix(lines[0], `  plan     "widths": 4 steps`) || !strings.HasSuffix(lines[5], "  not run  write-a-note-after-…") {
			t.Errorf("%q: not the lines view:\n%s", args, out)
		}
	}
}

// TestRunProgressQuiet: --quiet and --progress=off on a terminal write
// nothing but the summary.
func TestRunProgressQuiet(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolPlan, "src/a.go", "")
	for _, flag := range []string{"--quiet", "--progress=off"} {
		code, _, out := runOnPTY(t, dir, 80, 30, "xterm", flag, "plan.json")
		if code != 0 || out != "" {
			t.Errorf("%s on a terminal: exit %d, wrote %q", flag, code, out)
		}
	}
}

// TestRunProgressRunning: a running step shows its elapsed time, and the
// view is redrawn in place (the cursor goes back up) while it runs.
func TestRunProgressRunning(t *testing.T) {
	testkit.NeedScope(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "nap", "steps": [
		{"id": "nap", "shell": "sleep 0.5"},
		{"id": "after", "tool": "notes", "depends_on": ["nap"], "input": {"body": "x"}}
	]}`)
	code, _, view := runOnPTY(t, dir, 100, 30, "xterm", "--capsule", "capsule.json", "plan.json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"nap    shell    running 0.", "after  tool     waiting", "\x1b[3F", "nap    shell    success 0.", "after  tool     success"} {
		if !strings.Contains(view, want) {
			t.Errorf("the live view lacks %q:\n%q", want, view)
		}
	}
	s := &testkit.Screen{Cols: 100}
	s.Feed(t, view)
	want := []string{`plan "nap" completed: 2 steps, 2 settled`, "  nap    shell    success 0.0s", "  after  tool     success 0.0s"}
	if diff := cmp.Diff(want, s.Text()); diff != "" {
		t.Errorf("the screen (-want +got):\n%s", diff)
	}
}
