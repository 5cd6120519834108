package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/parser"
)

// TestBinary runs the planc binary as a process, for what the
// in-process tests cannot see: os.Args, the real standard streams and the
// process's exit status.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the planc binary; skipped with -short")
	}
	bin := plancBin(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(dupKeyPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	dup := diagOf(t, dupKeyPlan, parser.CodeDuplicateKey, nil)

	tests := []struct {
		args  []string
		stdin string
		want  result
	}{
		{
			args: []string{"check", "plan.json"},
			want: result{
				Stdout: block("plan.json", "1:26", "error", dup.Message, "duplicate-key", dupKeyPlan, strings.Repeat(" ", 25)+"^~~~"),
				Stderr: "",
				Code:   1,
			},
		},
		{
			args: []string{"check", "-"}, stdin: validPlan,
			want: result{Stderr: "", Code: 0},
		},
		{
			args: []string{"check", "--format", "yaml", "plan.json"},
			want: result{Stderr: `planc check: invalid value "yaml" for --format: want text, json or sarif` + "\nrun 'planc help check' for its usage\n", Code: 2},
		},
	}
	for _, tt := range tests {
		cmd := exec.Command(bin, tt.args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(tt.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("planc %s: %v", strings.Join(tt.args, " "), err)
		}
		got := result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("planc %s (-want +got):\n%s", strings.Join(tt.args, " "), diff)
		}
	}

	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("planc version: %v", err)
	}
	first, second, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(first, "planc "+plancVersion+" ") || !strings.HasSuffix(first, " "+runtime.GOOS+"/"+runtime.GOARCH) || !strings.HasPrefix(second, "capsule: ") {
		t.Errorf("planc version = %q", out)
	}
}
