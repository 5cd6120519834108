package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/planc/planc/vm"
)

// hookFormSteps are steps that each delete their own file f/ID in a form
// a deny "rm *" hook must see through: one or more a class. Those the
// machine's sandbox cannot run in the control (chroot wants a capability,
// watch a terminal) are held only in host/protect's tests.
func hookFormSteps() map[string]string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i386"}[runtime.GOARCH]
	return map[string]string{
		"envS":      `env -S'rm f/envS'`,
		"envSep":    `env -S'rm\_f/envSep'`,
		"envLong":   `env --split-string='sh -c "rm f/envLong"'`,
		"ansiHex":   `bash -c "$'\\x72m' f/ansiHex"`,
		"ansiOct":   `bash -c "$'\\162m' f/ansiOct"`,
		"ansiEval":  `bash -c "eval $'\\x72m f/ansiEval'"`,
		"trap":      `bash -c "trap 'rm f/trap' 0"`,
		"trapExit":  `bash -c "trap -- 'rm f/trapExit' EXIT; true"`,
		"here":      `bash -c "bash <<< 'rm f/here'"`,
		"heredoc":   "bash -c \"sh <<EOF\nrm f/heredoc\nEOF\"",
		"pipe":      `bash -c "echo 'rm f/pipe' | sh"`,
		"printf":    `bash -c "printf '%s %s\\n' rm f/printf | bash"`,
		"source":    `bash -c ". <(echo rm f/source)"`,
		"stdinProc": `bash -c "bash < <(echo rm f/stdinProc)"`,
		"execProc":  `bash -c "exec < <(echo rm f/execProc); sh"`,
		"setpriv":   `setpriv --no-new-privs rm f/setpriv`,
		"prlimit":   `prlimit --nofile=64 rm f/prlimit`,
		"setarch":   `setarch ` + arch + ` -R rm f/setarch`,
		"unshare":   `unshare --fork rm f/unshare`,
		"strace":    `strace -f -o /dev/null rm f/strace`,
		"script":    `script -qc 'rm f/script' /dev/null`,
		"su":        `su -c 'rm f/su'`,
		"runuser":   `runuser -u root -- rm f/runuser`,
		"varName":   `bash -c "r=rm; \$r f/varName"`,
		"substName": `bash -c "\$(echo rm) f/substName"`,
		"nsenter":   `nsenter rm f/nsenter`,
		"capsh":     `capsh -- -c 'rm f/capsh'`,
		"bashFunc":  `env 'BASH_FUNC_ls%%=() { rm f/bashFunc; }' bash -c ls`,
		"promptCmd": `bash -c "PROMPT_COMMAND='rm f/promptCmd' bash -i"`,
		"mapfile":   `bash -c "mapfile -C 'rm f/mapfile' -c 1 < capsule.json"`,
		"alias":     "bash -c \"shopt -s expand_aliases\nalias r=rm\nr f/alias\"",
		"hash":      `bash -c "hash -p /bin/rm del; del f/hash"`,
	}
}

// TestRunShellHookForms: through planc run, a deny "rm *" hook refuses
// every form of hookFormSteps — env -S, ANSI-C quoting, trap, here-strings,
// here-documents and pipes into a shell, source <(…), a shell's input from
// < <(…) (also through exec), the wrappers, and a
// command whose name is not known (fail closed) — and every file
// survives; the control runs the same steps without the hook, and each
// deletes its file.
func TestRunShellHookForms(t *testing.T) {
	t.Parallel()
	attackNeedScope(t)
	forms := hookFormSteps()
	var ids []string
	for id, line := range forms {
		// A wrapper this machine lacks cannot delete anything in the control.
		if _, err := exec.LookPath(strings.Fields(line)[0]); err != nil {
			t.Logf("%s: %v", id, err)
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	plan := func() string {
		var steps []string
		for _, id := range ids {
			steps = append(steps, `{"id": `+quoteJSON(id)+`, "shell": `+quoteJSON(forms[id])+`, "on_error": "continue"}`)
		}
		return `{"id": "forms", "steps": [` + strings.Join(steps, ",\n") + `]}`
	}()
	allow := `["env", "bash", "sh", "setpriv", "prlimit", "setarch", "unshare", "strace", "script", "su", "runuser", "nsenter", "capsh"]`
	// The control runs as root; the hooked plan as root and as uid 65534
	// in a delegated cgroup.
	run := func(t *testing.T, conf attackConf, hooked bool) {
		{
			hooks := `[]`
			if hooked {
				hooks = `[{"on": "on-shell", "match": "rm *", "commit_policy": "deny"}]`
			}
			dir := nobodyDir(t)
			files := []string{"capsule.json", `{"name": "local/hooked", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ` + allow + `}}, "hooks": ` + hooks + `}`,
				"plan.json", plan}
			for _, id := range ids {
				files = append(files, "f/"+id, "keep\n")
			}
			attackFiles(t, dir, files...)
			r := runAs(t, conf, plancCmd(t, dir, "--capsule", "capsule.json", "--session", filepath.Join(dir, "sess"), "plan.json"), nil)
			stdout, stderr, code := r.stdout, r.stderr, r.code
			got := attackSteps(t, stdout, stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
			}
			for _, id := range ids {
				s := got[id]
				b, err := os.ReadFile(filepath.Join(dir, "f", id))
				if hooked {
					if s.Status != vm.StatusFailed || s.Error == nil || !strings.HasPrefix(*s.Error, "refused by hook 0 (on-shell") {
						t.Errorf("%s (%q): %s %s", id, forms[id], s.Status, derefOr(s.Error))
					}
					if err != nil || string(b) != "keep\n" {
						t.Errorf("%s (%q): f/%s is %q %v", id, forms[id], id, b, err)
					}
					continue
				}
				if !os.IsNotExist(err) {
					t.Errorf("control %s (%q): f/%s still there (%s %s; output %s)", id, forms[id], id, s.Status, derefOr(s.Error), derefOr(s.Output))
				}
			}
			if hooked {
				// Fail closed: refused for what cannot be known, not for a match.
				for id, why := range map[string]string{"varName": "is not known before it runs", "substName": "is not known before it runs",
					"alias": "an alias, whose words run under another name", "hash": "which makes a name run another file"} {
					if s := got[id]; s.Error == nil || !strings.Contains(*s.Error, why) {
						t.Errorf("%s: %s", id, derefOr(s.Error))
					}
				}
			}
		}
	}
	t.Run("control", func(t *testing.T) { run(t, attackConf{name: "control"}, false) })
	asUsers(t, func(t *testing.T, conf attackConf) { run(t, conf, true) })
}
