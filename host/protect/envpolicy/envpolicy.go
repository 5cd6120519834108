// Package envpolicy decides the environment of every process a plan
// starts: shell steps, a capsule's command entrypoint and MCP servers. It
// sits between planc's own environment and those processes: host/sandbox
// builds a step's environment with it, the host an MCP server's and a
// capsule command's.
//
// The policy: a variable whose name contains KEY, SECRET, TOKEN, PASSWORD
// or CREDENTIAL, in any case, is not inherited (Secret); every other
// variable is. The manifest then sets variables explicitly, each value a
// template in which ${NAME} stands for planc's own NAME, secret or not
// (ast.ParseEnvValue): capabilities.shell.env for shell steps and capsule
// commands, an MCP server's own "env" for that server (docs/manifest.md).
// Setting "GITHUB_TOKEN": "${GITHUB_TOKEN}" passes one secret through by
// name.
package envpolicy

import (
	"slices"
	"strings"

	"github.com/planc/planc/ast"
)

// secretWords are the parts of a name that make a variable secret.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"}

// Secret reports whether a variable named name is held back from the
// processes a plan starts: its name contains KEY, SECRET, TOKEN, PASSWORD
// or CREDENTIAL, compared without regard to case (MY_API_KEY,
// GITHUB_TOKEN, aws_secret_access_key, KEYCHAIN_PATH).
func Secret(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// Environ returns the environment of a process started from an
// environment base (NAME=VALUE entries, as os.Environ gives them): base
// without its secret variables (Secret) and without the names set
// overrides, in base's order, then the variables of set (name to value
// template, ast.EnvMap) in name order, each value with its ${NAME}
// references replaced by base's values. A variable of set whose value
// refers to a variable base does not have is left out, so passing an
// unset secret through sets nothing; a value that is not a valid template
// (the manifest parser refuses those) is taken as it is written. The
// slice is fresh and never nil, so an empty result means an empty
// environment, not "inherit".
func Environ(base []string, set map[string]string) []string {
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := set[name]; over || Secret(name) {
			continue
		}
		env = append(env, kv)
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if v, ok := expand(set[name], base); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// expand returns template value with its references replaced by env's
// values; false when one names a variable env does not have.
func expand(value string, env []string) (string, bool) {
	parts, err := ast.ParseEnvValue(value)
	if err != nil {
		return value, true
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Ref == "" {
			b.WriteString(p.Lit)
			continue
		}
		v, ok := lookup(env, p.Ref)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// lookup finds a variable in env; the last entry of a name wins, as in
// os.Getenv after os.Setenv.
func lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if n, v, ok := strings.Cut(env[i], "="); ok && n == name {
			return v, true
		}
	}
	return "", false
}
