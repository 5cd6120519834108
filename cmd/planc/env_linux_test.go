package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The environment policy through planc run: shell steps, a capsule's
// command entrypoint and MCP server processes inherit planc's environment
// without the variables whose names contain KEY, SECRET, TOKEN, PASSWORD
// or CREDENTIAL, and each gets the variables its manifest entry sets. The
// helpers here are this file's own (attackRun, attackSteps and
// attackFiles are attack_race_linux_test.go's).

// envSecrets are planc's secret variables in these tests, by value.
var envSecrets = map[string]string{"MY_API_KEY": "k-secret-1", "GITHUB_TOKEN": "gh-secret-2", "Db_Password": "pw-secret-3"}

// envRun is attackRun with planc's environment holding envSecrets and
// PLAIN_SETTING=visible.
func envRun(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	for k, v := range envSecrets {
		t.Setenv(k, v)
	}
	t.Setenv("PLAIN_SETTING", "visible")
	return attackRun(t, dir, args...)
}

// envHas fails t unless env (env's output) holds every variable of want
// ("NAME=value") and none of the values of envSecrets but those.
func envHas(t *testing.T, what, env string, want ...string) {
	t.Helper()
	lines := strings.Split(env, "\n")
	for _, w := range want {
		if !contains(lines, w) {
			t.Errorf("%s has no %s; it has:\n%s", what, w, env)
		}
	}
	for k, v := range envSecrets {
		if strings.Contains(env, v) && !contains(want, k+"="+v) {
			t.Errorf("%s has the secret %s", what, k)
		}
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// envMCPServer builds the example MCP server into a directory of the
// test's own and returns its path.
func envMCPServer(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the MCP server with")
	}
	bin := filepath.Join(t.TempDir(), "mcp-demo")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, gobin, "build", "-o", bin, "github.com/planc/planc/examples/mcp/server").CombinedOutput(); err != nil {
		t.Fatalf("go build of the MCP server: %v\n%s", err, out)
	}
	return bin
}

// TestRunEnvPolicy: one plan with a shell step, a capsule step whose
// capsule has a command entrypoint, and an MCP server, each printing the
// environment it got. The shell step gets MY_API_KEY, which
// capabilities.shell.env passes by name, and FIXED, which it sets; the
// capsule's command gets GITHUB_TOKEN, which its own manifest passes, and
// nothing of the parent's shell.env; the MCP server gets GITHUB_TOKEN from
// its entry's env. No process gets a secret that is not passed to it, and
// all of them keep PLAIN_SETTING.
func TestRunEnvPolicy(t *testing.T) {
	attackNeedScope(t)
	server := envMCPServer(t)
	dir := t.TempDir()
	attackFiles(t, dir,
		"capsule.json", `{"name": "local/env",
			"capabilities": {"plan": {"submit": true}, "shell": {"allow": ["env"], "env": {"MY_API_KEY": "${MY_API_KEY}", "FIXED": "one", "UNSET_TOKEN": "${UNSET_TOKEN}"}},
				"spawn": {"allow": ["local/envcmd"]}},
			"tools": {"builtin": ["notes"], "mcp": {"demo": {"command": ["sh", "-c", "env > mcp-env.txt; exec `+server+`"],
				"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}}`,
		"roost/local/envcmd/capsule.json", `{"name": "local/envcmd",
			"capabilities": {"shell": {"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}},
			"entrypoint": {"command": ["env"]}}`,
		"plan.json", `{"id": "env", "steps": [
			{"id": "shell", "shell": "env"},
			{"id": "cmd", "capsule": "envcmd", "input": "x"}
		]}`)
	stdout, stderr, code := envRun(t, dir, "--capsule", "capsule.json", "--roost", "roost", "--session", "sess", "plan.json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	got := attackSteps(t, stdout, stderr)
	sh := derefOr(got["shell"].Output)
	envHas(t, "the shell step", sh, "MY_API_KEY=k-secret-1", "FIXED=one", "PLAIN_SETTING=visible")
	if strings.Contains(sh, "UNSET_TOKEN") {
		t.Errorf("a variable passed from an unset one is set:\n%s", sh)
	}
	cmd := derefOr(got["cmd"].Output)
	envHas(t, "the capsule's command", cmd, "GITHUB_TOKEN=gh-secret-2", "PLAIN_SETTING=visible")
	if strings.Contains(cmd, "FIXED=") {
		t.Errorf("the parent's shell.env reached the capsule's command:\n%s", cmd)
	}
	mcp, err := os.ReadFile(filepath.Join(dir, "mcp-env.txt"))
	if err != nil {
		t.Fatalf("the MCP server wrote no environment: %v\n%s", err, stderr)
	}
	envHas(t, "the MCP server", string(mcp), "GITHUB_TOKEN=gh-secret-2", "PLAIN_SETTING=visible")
	if strings.Contains(string(mcp), "FIXED=") {
		t.Errorf("shell.env reached the MCP server:\n%s", mcp)
	}
}

// TestRunEnvDefault: with no env in the manifest, a shell step sees none
// of planc's secrets and everything else.
func TestRunEnvDefault(t *testing.T) {
	attackNeedScope(t)
	dir := t.TempDir()
	attackFiles(t, dir,
		"capsule.json", `{"name": "local/env", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["env", "sh"]}}}`,
		"plan.json", `{"id": "env", "steps": [{"id": "env", "shell": "env"}, {"id": "sh", "shell": "sh -c 'echo \"[$MY_API_KEY$GITHUB_TOKEN]\"'"}]}`)
	stdout, stderr, code := envRun(t, dir, "--capsule", "capsule.json", "plan.json")
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	got := attackSteps(t, stdout, stderr)
	envHas(t, "the shell step", derefOr(got["env"].Output), "PLAIN_SETTING=visible", "PATH="+os.Getenv("PATH"))
	if out := derefOr(got["sh"].Output); out != "[]\n" {
		t.Errorf("sh saw %q", out)
	}
}

// TestCheckEnvManifest: planc check reports a bad env section of a
// manifest with its position and a fix.
func TestCheckEnvManifest(t *testing.T) {
	dir := t.TempDir()
	attackFiles(t, dir,
		"capsule.json", "{\"name\": \"local/env\",\n \"capabilities\": {\"shell\": {\"evn\": {}, \"env\": {\"MY-KEY\": \"${MY_KEY\"}}},\n \"tools\": {\"mcp\": {\"gh\": {\"command\": [\"x\"], \"env\": {\"T\": 1}}}}}",
		"plan.json", `{"id": "p", "steps": [{"id": "a", "tool": "notes", "input": {"body": "x"}}]}`)
	cmd := exec.Command(plancBin(t), "check", "--capsule", "capsule.json", "plan.json")
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("planc check: %v\n%s%s", err, so.String(), se.String())
	}
	out := so.String() + se.String()
	for _, want := range []string{
		`capsule.json:2:29: error: unknown field "evn" in capabilities.shell; did you mean "env"? [manifest-unknown-field]`,
		`capsule.json:2:48: error: capabilities.shell.env has the variable "MY-KEY", whose name is not a variable name; write it as "MY_KEY" [manifest-bad-value]`,
		`capsule.json:3:58: error: tools.mcp.gh.env.T must be a string, not a number; write it in quotes, as in "1" [manifest-wrong-type]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("planc check does not say\n%s\nit says:\n%s", want, out)
		}
	}
}
