package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/buildinfo"
	"github.com/planc/planc/internal/testkit"
)

// result is what one in-process run of planc produced.
type result struct {
	Stdout string
	Stderr string
	Code   int
}

// run runs planc in-process with args and stdin.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// inTempDir writes files into a fresh temporary directory and makes it the
// working directory for the rest of the test, so file names in the output
// are short and stable.
func inTempDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		testkit.TrustProject(t, filepath.Join(dir, name), body)
	}
	t.Chdir(dir)
	return dir
}

func TestMainUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHas  string // "" means stdout must be empty
		stderrHas  []string
		stderrNone bool
	}{
		{name: "no command", args: nil, code: 2, stderrHas: []string{"planc: no command given", "usage: planc COMMAND"}},
		{name: "unknown command", args: []string{"chek"}, code: 2,
			stderrHas: []string{`planc: unknown command "chek"; did you mean "check"?`, "run 'planc help' for the commands"}},
		{name: "flag before command", args: []string{"--werror", "check"}, code: 2,
			stderrHas: []string{"planc: unknown flag --werror; flags go after the command"}},
		{name: "help", args: []string{"help"}, code: 0, stdoutHas: "usage: planc COMMAND", stderrNone: true},
		{name: "-h", args: []string{"-h"}, code: 0, stdoutHas: "  check ", stderrNone: true},
		{name: "--help", args: []string{"--help"}, code: 0, stdoutHas: "  version ", stderrNone: true},
		{name: "help check", args: []string{"help", "check"}, code: 0,
			stdoutHas: "usage: planc check [--capsule FILE] [--format text|json|sarif] [--werror] [--refresh-tools] [--verbose] PLAN...", stderrNone: true},
		{name: "help unknown", args: []string{"help", "nope"}, code: 2, stderrHas: []string{`planc help: unknown command "nope"`}},
		{name: "help two", args: []string{"help", "check", "version"}, code: 2, stderrHas: []string{"give at most one command"}},
		{name: "check -h", args: []string{"check", "-h"}, code: 0, stdoutHas: "usage: planc check", stderrNone: true},
		{name: "check --help", args: []string{"check", "--help"}, code: 0, stdoutHas: "--werror", stderrNone: true},
		{name: "check unknown flag", args: []string{"check", "--werorr", "plan.json"}, code: 2,
			stderrHas: []string{"planc check: unknown flag --werorr; did you mean --werror?", "run 'planc help check' for its usage"}},
		{name: "check bad format", args: []string{"check", "--format", "xml", "plan.json"}, code: 2,
			stderrHas: []string{`planc check: invalid value "xml" for --format: want text, json or sarif`}},
		{name: "check format typo", args: []string{"check", "--format=jsno", "plan.json"}, code: 2,
			stderrHas: []string{`want text, json or sarif; did you mean "json"?`}},
		{name: "check capsule without value", args: []string{"check", "plan.json", "--capsule"}, code: 2,
			stderrHas: []string{"planc check: --capsule needs a value"}},
		{name: "check no plan", args: []string{"check"}, code: 2,
			stderrHas: []string{"planc check: no plan given; name plan files, or - for standard input", "run 'planc help check' for its usage"}},
		{name: "check no plan with flags", args: []string{"check", "--werror", "--format", "json"}, code: 2,
			stderrHas: []string{"planc check: no plan given"}},
		{name: "check stdin twice", args: []string{"check", "-", "-"}, code: 2,
			stderrHas: []string{"standard input (-) given more than once"}},
		{name: "check stdin as plan and capsule", args: []string{"check", "--capsule", "-", "-"}, code: 2,
			stderrHas: []string{"standard input (-) given more than once"}},
		{name: "version with argument", args: []string{"version", "extra"}, code: 2,
			stderrHas: []string{`planc version: unexpected argument "extra"; planc version takes none`}},
		{name: "version unknown flag", args: []string{"version", "--short"}, code: 2,
			stderrHas: []string{"planc version: unknown flag --short"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, "", tt.args...)
			if got.Code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", got.Code, tt.code, got.Stdout, got.Stderr)
			}
			if tt.stdoutHas == "" && got.Stdout != "" {
				t.Errorf("stdout is not empty:\n%s", got.Stdout)
			}
			if !strings.Contains(got.Stdout, tt.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdoutHas, got.Stdout)
			}
			for _, s := range tt.stderrHas {
				if !strings.Contains(got.Stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, got.Stderr)
				}
			}
			if tt.stderrNone && got.Stderr != "" {
				t.Errorf("stderr is not empty:\n%s", got.Stderr)
			}
		})
	}
}

// TestVersion: planc version prints its version line, then the capsule
// the other commands use here: the embedded default, or the
// .planc/capsule.json found from the current directory upward.
func TestVersion(t *testing.T) {
	dir := inTempDir(t, nil)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		got := run(t, "", args...)
		want := result{Stdout: buildinfo.Line("planc", plancVersion, buildinfo.Module()) + "\ncapsule: the embedded default (there is no .planc/capsule.json in the current directory or a parent; planc init makes one)\n", Code: 0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("planc %s (-want +got):\n%s", strings.Join(args, " "), diff)
		}
		if !strings.HasPrefix(got.Stdout, "planc "+plancVersion+" ") || !strings.Contains(got.Stdout, " "+runtime.Version()+" ") {
			t.Errorf("planc %s = %q, want the planc and Go versions", strings.Join(args, " "), got.Stdout)
		}
	}
	if got := run(t, "", "init"); got.Code != 0 {
		t.Fatalf("planc init: %+v", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "sub"))
	got := run(t, "", "version")
	if _, line, _ := strings.Cut(got.Stdout, "\n"); line != "capsule: ../.planc/capsule.json (found from the current directory)\n" {
		t.Errorf("planc version under a project: %q", got.Stdout)
	}
}

// TestHelpHidesInternalCommands: the shell shim is a command of planc's
// own binary but not for people, so help does not list it.
func TestHelpHidesInternalCommands(t *testing.T) {
	got := run(t, "", "help")
	if strings.Contains(got.Stdout, "__") || !strings.Contains(got.Stdout, "  run ") {
		t.Errorf("help lists internal commands or misses run:\n%s", got.Stdout)
	}
}
