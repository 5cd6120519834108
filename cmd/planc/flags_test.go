package main

import (
	"strings"
	"testing"
)

// TestFlagErrors: a flag error names the flag as the user spelt it, says
// what a good value looks like, and is one line plus one pointing to the
// command's help; never the whole help page.
func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // the first line of standard error
	}{
		{[]string{"check", "--format", "xml", "p.json"}, `planc check: invalid value "xml" for --format: want text, json or sarif`},
		{[]string{"check", "-format=xml", "p.json"}, `planc check: invalid value "xml" for -format: want text, json or sarif`},
		{[]string{"check", "--format=jsno", "p.json"}, `planc check: invalid value "jsno" for --format: want text, json or sarif; did you mean "json"?`},
		{[]string{"check", "--formt", "json", "p.json"}, `planc check: unknown flag --formt; did you mean --format?`},
		{[]string{"check", "-formt=json", "p.json"}, `planc check: unknown flag -formt; did you mean --format?`},
		{[]string{"check", "p.json", "--capsule"}, `planc check: --capsule needs a value`},
		{[]string{"check", "p.json", "-format"}, `planc check: -format needs a value: text, json or sarif`},
		{[]string{"check", "---werror", "p.json"}, `planc check: "---werror" is not a flag; flags are --NAME or --NAME=VALUE (after --, arguments are not flags)`},
		{[]string{"run", "--shell-timeout", "5", "p.json"}, `planc run: --shell-timeout "5" has no unit; write it with one, as in --shell-timeout 5s`},
		{[]string{"run", "-shell-timeout=1.5", "p.json"}, `planc run: -shell-timeout "1.5" has no unit; write it with one, as in -shell-timeout 1.5s`},
		{[]string{"serve", "--mcp", "--shell-timeout", "soon"}, `planc serve: --shell-timeout "soon" is not a duration; write one such as 90s, 2m or 1h30m`},
		{[]string{"run", "--max-parallel", "two", "p.json"}, `planc run: --max-parallel "two" is not a whole number`},
		{[]string{"run", "--quiet=maybe", "p.json"}, `planc run: --quiet takes no value, but has "maybe"; give --quiet alone`},
		{[]string{"run", "--progress=fancy", "p.json"}, `planc run: invalid value "fancy" for --progress: want tty, lines or off`},
		{[]string{"run", "--progress", "lines", "p.json"}, `planc run: --progress takes its mode after "=", as in --progress=lines`},
		{[]string{"run", "--progress=lines", "--quiet", "p.json"}, `planc run: --progress=lines and --quiet contradict each other; give one`},
		{[]string{"graph", "--format", "svg", "p.json"}, `planc graph: invalid value "svg" for --format: want dot or mermaid`},
		{[]string{"version", "--short"}, `planc version: unknown flag --short`},
		{[]string{"dump-ir"}, `planc dump-ir: give exactly one plan`},
	}
	for _, tt := range tests {
		got := run(t, "", tt.args...)
		lines := strings.Split(strings.TrimSuffix(got.Stderr, "\n"), "\n")
		if got.Code != exitUsage || got.Stdout != "" {
			t.Errorf("planc %q: exit %d, stdout %q; want exit 2 and nothing on stdout", tt.args, got.Code, got.Stdout)
		}
		hint := "run 'planc help " + tt.args[0] + "' for its usage"
		if len(lines) != 2 || lines[0] != tt.want || lines[1] != hint {
			t.Errorf("planc %q: stderr\n%s\nwant\n%s\n%s", tt.args, got.Stderr, tt.want, hint)
		}
	}
}

// TestPlancUsageErrors: a usage error of planc itself is one line and a
// pointer to planc help; only planc without a command lists the commands.
func TestPlancUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"chek"}, `planc: unknown command "chek"; did you mean "check"?`},
		{[]string{"--werror", "check"}, `planc: unknown flag --werror; flags go after the command, as in planc check --werror plan.json`},
		{[]string{"help", "rnu"}, `planc help: unknown command "rnu"; did you mean "run"?`},
		{[]string{"help", "check", "run"}, `planc help: give at most one command`},
	}
	for _, tt := range tests {
		got := run(t, "", tt.args...)
		want := tt.want + "\nrun 'planc help' for the commands\n"
		if got.Code != exitUsage || got.Stderr != want {
			t.Errorf("planc %q: exit %d, stderr\n%s\nwant exit 2, stderr\n%s", tt.args, got.Code, got.Stderr, want)
		}
	}
	if got := run(t, ""); got.Code != exitUsage || !strings.Contains(got.Stderr, "  check ") {
		t.Errorf("planc alone: exit %d, stderr\n%s\nwant the commands listed", got.Code, got.Stderr)
	}
}

// TestShortFlags: -h prints a command's usage on standard output (exit 0),
// and -q is planc run's --quiet, contradicting a progress view as --quiet
// does.
func TestShortFlags(t *testing.T) {
	for _, cmd := range []string{"run", "check", "trace", "init"} {
		got := run(t, "", cmd, "-h")
		if got.Code != 0 || !strings.HasPrefix(got.Stdout, "usage: planc "+cmd) || got.Stderr != "" {
			t.Errorf("planc %s -h: %+v", cmd, got)
		}
	}
	got := run(t, "", "run", "-q", "--progress=lines", "plan.json")
	if got.Code != 2 || !strings.Contains(got.Stderr, "--progress=lines and --quiet contradict each other") {
		t.Errorf("planc run -q --progress=lines: %+v", got)
	}
}
