//go:build unix

package capsule

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
)

// pinWorld is a directory with real.sh, other.sh and the link run.sh to
// real.sh through the linked directory lnk (to dir itself).
func pinWorld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "d/real.sh", "echo real\n", "d/other.sh", "echo other\n")
	if err := os.Symlink("d", filepath.Join(dir, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.sh", filepath.Join(dir, "d", "run.sh")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCheckPins(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string // "" for none
	}{
		{"untouched", func(*testing.T, string) {}, ""},
		{"link re-pointed", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "d", "run.sh"))
			os.Symlink("other.sh", filepath.Join(dir, "d", "run.sh"))
		}, `which held "real.sh" when the spawn was checked and holds "other.sh" now`},
		{"directory link re-pointed", func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, "d"), filepath.Join(dir, "e"))
			os.Remove(filepath.Join(dir, "lnk"))
			os.Symlink("e", filepath.Join(dir, "lnk"))
		}, `which held "d" when the spawn was checked and holds "e" now`},
		{"link made a file", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "d", "run.sh"))
			testkit.WriteFiles(t, dir, "d/run.sh", "echo forged\n")
		}, "which held \"real.sh\" when the spawn was checked and is no symbolic link now"},
		{"file replaced", func(t *testing.T, dir string) {
			testkit.WriteFiles(t, dir, "forged.sh", "echo forged\n")
			if err := os.Rename(filepath.Join(dir, "forged.sh"), filepath.Join(dir, "d", "real.sh")); err != nil {
				t.Fatal(err)
			}
		}, "is not the file its spawn checked"},
		{"file gone", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "d", "real.sh")) }, "leads to nothing now"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := pinWorld(t)
			pin, err := travel(filepath.Join(dir, "lnk", "run.sh"))
			if err != nil {
				t.Fatal(err)
			}
			if len(pin.Links) != 2 || pin.Real != filepath.Join(evalOr(dir), "d", "real.sh") {
				t.Fatalf("travel: %+v; want two links to d/real.sh", pin)
			}
			pin.Kind = PinCommand
			c.change(t, dir)
			err = CheckPins([]Pin{pin})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("CheckPins: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("CheckPins: %v; want %q", err, c.want)
			}
		})
	}
}

func TestCheckResolved(t *testing.T) {
	dir := pinWorld(t)
	path := filepath.Join(dir, "d", "run.sh")
	pin, err := travel(path)
	if err != nil {
		t.Fatal(err)
	}
	pin.Kind, pin.Word = PinAllowed, "./d/run.sh"
	fi := func(p string) os.FileInfo {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	good := Resolved{Word: pin.Word, Path: path, Real: pin.Real, File: fi(pin.Real)}
	other := filepath.Join(evalOr(dir), "d", "other.sh")
	for _, c := range []struct {
		name     string
		resolved []Resolved
		want     string
	}{
		{"same", []Resolved{good}, ""},
		{"another file", []Resolved{{Word: pin.Word, Path: path, Real: other, File: fi(other)}}, "and to " + other + " at the plan's start"},
		{"another identity", []Resolved{{Word: pin.Word, Path: path, Real: pin.Real, File: fi(other)}}, "at the plan's start"},
		{"by another path", []Resolved{{Word: pin.Word, Path: pin.Real, Real: pin.Real, File: fi(pin.Real)}}, "at the plan's start"},
		{"nothing", nil, "and to nothing at the plan's start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckResolved([]Pin{pin}, c.resolved)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("CheckResolved: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("CheckResolved: %v; want %q", err, c.want)
			}
		})
	}
	// The pins' travels are checked too.
	os.Remove(path)
	os.Symlink("other.sh", path)
	if err := CheckResolved([]Pin{pin}, []Resolved{good}); err == nil || !strings.Contains(err.Error(), "holds \"other.sh\" now") {
		t.Fatalf("CheckResolved after the link was re-pointed: %v", err)
	}
}

// TestRunChildPins: the pins on the manifest pipe are checked at the
// child's start, and its command runs the file the pinned link led to.
func TestRunChildPins(t *testing.T) {
	manifest := `{"name": "local/w", "entrypoint": {"command": ["./run.sh", "arg.txt"]}}`
	run := func(t *testing.T, change func(capDir, work string)) childRun {
		t.Helper()
		t.Setenv(EnvObjectiveFile, "")
		dir := t.TempDir()
		roost := testkit.WriteRoost(t, dir, "local/w", manifest)
		capDir := filepath.Join(roost, "local", "w")
		testkit.WriteFiles(t, capDir, "real.sh", "#!/bin/sh\necho real \"$1\"; cat \"$1\"\n", "forged.sh", "#!/bin/sh\necho forged\n")
		testkit.WriteFiles(t, dir, "args/arg.txt", "the arg\n")
		os.Chmod(filepath.Join(capDir, "real.sh"), 0o755)
		os.Chmod(filepath.Join(capDir, "forged.sh"), 0o755)
		os.Symlink("real.sh", filepath.Join(capDir, "run.sh"))
		os.Symlink("args/arg.txt", filepath.Join(dir, "arg.txt"))
		src, _ := os.ReadFile(filepath.Join(capDir, ManifestFile))
		m, err := LoadManifest("capsule.json", src)
		if err != nil {
			t.Fatal(err)
		}
		pins := pinsFor(&Found{Name: "local/w", Dir: capDir, Manifest: m, Src: src}, dir)
		if len(pins) != 2 || pins[0].Kind != PinCommand || pins[1].Kind != PinCommandArg {
			t.Fatalf("pins: %+v; want the command and its argument", pins)
		}
		change(capDir, dir)
		var so, se bytes.Buffer
		cfg := ChildConfig{
			Manifest: filepath.Join(capDir, ManifestFile), ManifestSrc: bytes.NewReader(append(encodePins(pins), src...)),
			SessionDir: filepath.Join(dir, "parent", sessionfmt.DelegationsDir, "plan-1-w-1"), Roost: roost, WorkDir: dir,
			Stdin: strings.NewReader("go"), Stdout: &so, Stderr: &se,
		}
		code := RunChild(context.Background(), cfg, func(context.Context, PlanEntry) (PlanResult, error) {
			t.Error("the plan runner was called")
			return PlanResult{}, nil
		})
		return childRun{code: code, stdout: so.String(), stderr: se.String()}
	}
	t.Run("untouched", func(t *testing.T) {
		r := run(t, func(string, string) {})
		// The command ran as the file the link led to, its argument as
		// the file its link led to: no link is followed again.
		if r.code != session.ExitCompleted || !strings.Contains(r.stdout, "real ") || !strings.Contains(r.stdout, "args/arg.txt\nthe arg") {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("command link re-pointed", func(t *testing.T) {
		r := run(t, func(capDir, _ string) {
			os.Remove(filepath.Join(capDir, "run.sh"))
			os.Symlink("forged.sh", filepath.Join(capDir, "run.sh"))
		})
		if r.code != session.ExitRefused || strings.Contains(r.stdout, "forged") || !strings.Contains(r.stderr, `holds "forged.sh" now`) {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("argument replaced", func(t *testing.T) {
		r := run(t, func(_, work string) {
			testkit.WriteFiles(t, work, "new.txt", "forged arg\n")
			os.Rename(filepath.Join(work, "new.txt"), filepath.Join(work, "args", "arg.txt"))
		})
		if r.code != session.ExitRefused || strings.Contains(r.stdout, "forged") || !strings.Contains(r.stderr, "is not the file its spawn checked") {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("bad header", func(t *testing.T) {
		var se bytes.Buffer
		code := RunChild(context.Background(), ChildConfig{Manifest: "x/capsule.json", ManifestSrc: strings.NewReader(pinsMagic + "{not json\n{}"),
			SessionDir: t.TempDir(), Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &se}, nil)
		if code != session.ExitRefused || !strings.Contains(se.String(), "the pins of the spawn") {
			t.Fatalf("exit %d, stderr %q", code, se.String())
		}
	})
}
