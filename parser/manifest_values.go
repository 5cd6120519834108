package parser

import (
	"fmt"
	"slices"
	"strings"
	"time"

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
		return &ast.DurationAt{D: d, Raw: s, Span: v.Span}
	}
	return nil
}
