package parser

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planc/planc/ast"
)

func (p *manifestParser) nonEmpty(v *ast.Value, path, s, fix string) bool {
	switch {
	case s == "":
		p.report(CodeManifestBadValue, v.Span, "", "%s is empty; %s", path, fix)
	case strings.IndexByte(s, 0) >= 0:
		p.report(CodeManifestBadValue, v.Span, "", "%s holds a NUL byte; remove it", path)
	default:
		return true
	}
	return false
}

// path accepts a file path: non-empty, no NUL. It is relative to the
// manifest's directory unless absolute; whether it exists is the runtime's
// business.
func (p *manifestParser) path(v *ast.Value, path, s string) bool {
	return p.nonEmpty(v, path, s, `write a path relative to the manifest's directory, or "." for all of it`)
}

// planPath accepts entrypoint.plan, the path of a plan file: as path, with
// a fix for a file ("." names a directory, no plan).
func (p *manifestParser) planPath(v *ast.Value, path, s string) bool {
	return p.nonEmpty(v, path, s, `write the path of the plan file, relative to the manifest's directory (e.g. "plan.json")`)
}

// binaryName accepts a shell.allow entry: one word, compared exactly with a
// shell step's first word (S14), so an entry with white space in it could
// never match.
func (p *manifestParser) binaryName(v *ast.Value, path, s string) bool {
	if !p.nonEmpty(v, path, s, `write a binary name such as "bash", or remove it`) {
		return false
	}
	if w := strings.Fields(s); len(w) != 1 || w[0] != s {
		fix, sugg := "remove the white space", ""
		if len(w) > 0 {
			sugg = w[0]
			fix = fmt.Sprintf("list the binary alone, as in %q", sugg)
		}
		p.report(CodeManifestBadValue, v.Span, sugg, "%s %q is not one binary name; %s", path, s, fix)
		return false
	}
	return true
}

// capsuleName accepts a namespaced capsule name (ast.IsCapsuleName): the
// roost keeps capsules at ROOST/<namespace>/<name>, and S15 matches a capsule
// step's bare name against the last part.
func (p *manifestParser) capsuleName(v *ast.Value, path, s string) bool {
	switch {
	case ast.IsCapsuleName(s):
		return true
	case ast.IsCapsuleNamePart(s):
		p.report(CodeManifestBadValue, v.Span, "local/"+s, "%s %q has no namespace; write it as %q", path, s, "local/"+s)
	default:
		p.report(CodeManifestBadValue, v.Span, "", "%s %q is not a capsule name; write namespace/name, as in %q, each part letters, digits, \"_\", \"-\" or \".\" and not starting with \".\" or \"-\"", path, s, "local/worker")
	}
	return false
}

// builtinTool accepts one of ast.BuiltinTools(). submit-plan is not one: it
// comes with capabilities.plan.submit.
func (p *manifestParser) builtinTool(v *ast.Value, path, s string) bool {
	known := ast.BuiltinTools()
	switch sugg := ast.Suggest(s, known); {
	case slices.Contains(known, s):
		return true
	case s == "submit-plan":
		p.report(CodeManifestBadValue, v.Span, "", "%s %q is not a built-in tool; grant it with \"capabilities\": {\"plan\": {\"submit\": true}}", path, s)
	case sugg != "":
		p.report(CodeManifestBadValue, v.Span, sugg, "%s %q is not a built-in tool; did you mean %q?", path, s, sugg)
	default:
		p.report(CodeManifestBadValue, v.Span, "", "%s %q is not a built-in tool; use one of %s", path, s, ast.QuoteList(known, "or"))
	}
	return false
}

// oneOf accepts s when it is in set, suggesting a near one (or set's word
// with an "on-" prefix that was left off) otherwise.
func (p *manifestParser) oneOf(v *ast.Value, path, what, s string, set []string) bool {
	if slices.Contains(set, s) {
		return true
	}
	sugg := ast.Suggest(s, set)
	if sugg == "" && slices.Contains(set, "on-"+s) {
		sugg = "on-" + s
	}
	if sugg != "" {
		p.report(CodeManifestBadValue, v.Span, sugg, "%s %q is not %s; did you mean %q?", path, s, what, sugg)
	} else {
		p.report(CodeManifestBadValue, v.Span, "", "%s %q is not %s; use %s", path, s, what, ast.QuoteList(set, "or"))
	}
	return false
}

// version accepts x.y.z (ast.IsVersion), suggesting a fix for "v1.2.3",
// "1.2" and "1".
func (p *manifestParser) version(v *ast.Value, s string) bool {
	if ast.IsVersion(s) {
		return true
	}
	t := strings.TrimLeft(s, "vV")
	for _, sugg := range []string{t, t + ".0", t + ".0.0"} {
		if ast.IsVersion(sugg) {
			p.report(CodeManifestBadValue, v.Span, sugg, "version %q is not of the form x.y.z; write it as %q", s, sugg)
			return false
		}
	}
	p.report(CodeManifestBadValue, v.Span, "", "version %q is not of the form x.y.z; write three numbers such as %q", s, ast.DefaultManifestVersion)
	return false
}

// timeout reads capabilities.shell.timeout: a Go duration string above zero.
func (p *manifestParser) timeout(m *ast.Member) *ast.DurationAt {
	const path = "capabilities.shell.timeout"
	if m == nil {
		return nil
	}
	v, fix := m.Value, `write "timeout": "10m"`
	if v.Kind == ast.Number {
		fix = fmt.Sprintf("write it as a string with a unit, as in %q", v.Str+"s")
	}
	s, ok := p.str(m, path, fix)
	if !ok {
		return nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && s != "" && strings.Trim(s, "0123456789") == "":
		p.report(CodeManifestBadValue, v.Span, s+"s", "%s %q has no unit; write it with one, as in %q", path, s, s+"s")
	case err != nil:
		p.report(CodeManifestBadValue, v.Span, "", "%s %q is not a duration; write a Go duration such as %q, %q or %q", path, s, "10m", "90s", "1h30m")
	case d <= 0:
		p.report(CodeManifestBadValue, v.Span, "", "%s %q is not positive; write a duration above zero, such as %q", path, s, "10m")
	default:
		return &ast.DurationAt{D: d, Raw: s, Span: p.sp(v.Span)}
	}
	return nil
}

// env reads an env object (capabilities.shell.env, an MCP server's env):
// variable names to value templates (ast.ParseEnvValue). A null value is
// the same as an absent variable.
func (p *manifestParser) env(m *ast.Member, path string) ([]ast.EnvVar, ast.Span) {
	const example = `{"MY_API_KEY": "${MY_API_KEY}", "RUST_LOG": "debug"}`
	if m == nil || !p.want(m.Value, ast.Object, path, "an object of variable names to values", "write \"env\": "+example) {
		return nil, ast.Span{}
	}
	var out []ast.EnvVar
	for _, v := range m.Value.Members() {
		if !ast.IsEnvName(v.Key) {
			sugg := envName(v.Key)
			fix := "write letters, digits and \"_\", not starting with a digit"
			if sugg != "" {
				fix = fmt.Sprintf("write it as %q", sugg)
			}
			p.report(CodeManifestBadValue, v.KeySpan(), sugg, "%s has the variable %q, whose name is not a variable name; %s", path, v.Key, fix)
			continue
		}
		vp := path + "." + v.Key
		switch v.Value.Kind {
		case ast.Null:
			continue
		case ast.String:
		default:
			fix := `write "${` + v.Key + `}" to pass planc's own ` + v.Key + `, or a value in quotes`
			switch v.Value.Kind {
			case ast.Number:
				fix = fmt.Sprintf("write it in quotes, as in %q", v.Value.Str)
			case ast.Bool:
				fix = fmt.Sprintf("write it in quotes, as in %q", fmt.Sprint(v.Value.Bool))
			}
			p.want(v.Value, ast.String, vp, "a string", fix)
			continue
		}
		if _, err := ast.ParseEnvValue(v.Value.Str); err != nil {
			p.report(CodeManifestBadValue, v.Value.Span, "", "%s: %v; write ${NAME} for planc's own variable NAME, or $$ for a \"$\"", vp, err)
			continue
		}
		if strings.IndexByte(v.Value.Str, 0) >= 0 {
			p.report(CodeManifestBadValue, v.Value.Span, "", "%s holds a NUL byte, which no environment can hold; remove it", vp)
			continue
		}
		out = append(out, ast.EnvVar{Name: v.Key, NameSpan: p.sp(v.KeySpan()), Value: v.Value.Str, ValueSpan: p.sp(v.Value.Span)})
	}
	return out, p.sp(m.Value.Span)
}

// envName returns name with every character a variable name cannot hold
// made "_" (and "_" put before a leading digit), "" when that leaves
// nothing of it.
func envName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	s := string(b)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if strings.Trim(s, "_") == "" || !utf8.ValidString(name) || len(name) != len([]rune(name)) {
		return ""
	}
	return s
}
