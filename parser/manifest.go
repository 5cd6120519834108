package parser

import (
	"fmt"
	"slices"
	"strings"

	"github.com/planc/planc/ast"
)

// Codes of the capsule manifest's diagnostics (docs/manifest.md).
const (
	CodeManifestUnknownField = "manifest-unknown-field"
	CodeManifestWrongType    = "manifest-wrong-type"
	CodeManifestMissingField = "manifest-missing-field"
	CodeManifestBadValue     = "manifest-bad-value"
)

// CommentField is the member that any object of a manifest with fixed
// fields (the root, capabilities and its sections, tools, an MCP server, a
// hook, the entrypoint) may hold for people to read, as JSON Schema's
// "$comment": a string, which planc ignores. JSON has no comments; planc
// init writes its explanations this way.
const CommentField = "$comment"

// ParseManifest parses a capsule manifest (docs/manifest.md) strictly: an unknown field at any level, a wrong JSON
// type, a missing required field and a bad value are all errors, every one
// reported (sorted by position), with a did-you-mean suggestion where one is
// close. A null field is the same as an absent one, as in plans (S3). The
// manifest is nil only when the document is not JSON or its root is not an
// object; otherwise it holds every value that was accepted.
func ParseManifest(src []byte, lim Limits) (*ast.Manifest, []ast.Diagnostic) {
	s := newScanner(src, lim)
	root := s.document()
	p := &manifestParser{diags: s.diags, lines: s.lines}
	var m *ast.Manifest
	switch {
	case root == nil:
	case root.Kind != ast.Object:
		p.report(CodeNotAnObject, root.Span, "", "a capsule manifest is one JSON object, not %s; write {\"name\": \"local/<capsule>\", …}", root.Kind.Article())
	default:
		m = p.manifest(root)
	}
	ast.SortDiagnostics(p.diags)
	return m, p.diags
}

type manifestParser struct {
	diags []ast.Diagnostic
	lines *ast.Lines
}

// sp resolves r, a range of the manifest, to lines and columns: the
// manifest's fields keep Spans.
func (p *manifestParser) sp(r ast.Range) ast.Span { return p.lines.Span(r) }

func (p *manifestParser) report(code string, r ast.Range, sugg, format string, args ...any) {
	p.diags = append(p.diags, ast.Diagnostic{Span: p.sp(r), Severity: ast.Error, Code: code, Message: fmt.Sprintf(format, args...), Suggestion: sugg})
}

// The fields of each manifest object, and where a field misplaced at the
// root or in capabilities belongs.
var (
	rootFields = [...]string{"name", "version", "capabilities", "tools", "hooks", "entrypoint"}
	capsFields = [...]string{"plan", "shell", "spawn", "filesystem"}
	hookFields = [...]string{"on", "match", "commit_policy"}
)

// misplaced returns the object a field of another object belongs in, or "".
func misplaced(key string) string {
	switch key {
	case "plan", "shell", "spawn", "filesystem":
		return "capabilities"
	case "builtin", "mcp":
		return "tools"
	case "submit":
		return "capabilities.plan"
	case "timeout", "env":
		return "capabilities.shell"
	case "read_only":
		return "capabilities.filesystem"
	}
	return ""
}

func (p *manifestParser) manifest(root *ast.Value) *ast.Manifest {
	m := &ast.Manifest{Span: p.sp(root.Span), Version: ast.DefaultManifestVersion}
	f := p.fields(root, "", rootFields[:])
	if n := f["name"]; n == nil {
		p.report(CodeManifestMissingField, root.OpenSpan(), "", "the manifest has no %q; add \"name\": \"local/<capsule>\"", "name")
	} else if s, ok := p.str(n, "name", `write "name": "local/<capsule>"`); ok && p.capsuleName(n.Value, "name", s) {
		m.Name, m.NameSpan = s, p.sp(n.Value.Span)
	}
	if v := f["version"]; v != nil {
		m.Version = ""
		if s, ok := p.str(v, "version", `write "version": "0.1.0"`); ok && p.version(v.Value, s) {
			m.Version, m.VersionSpan = s, p.sp(v.Value.Span)
		}
	}
	if cf, obj := p.sub(f, "capabilities", "capabilities", `write "capabilities": {"shell": {"allow": ["bash"]}}`, capsFields[:]...); obj != nil {
		m.Capabilities.Span = p.sp(obj.Span)
		p.capabilities(&m.Capabilities, cf)
	}
	if tf, obj := p.sub(f, "tools", "tools", `write "tools": {"builtin": ["notes"]}`, "builtin", "mcp"); obj != nil {
		m.Tools.Span = p.sp(obj.Span)
		m.Tools.Builtin, m.Tools.BuiltinSpan = p.strList(tf["builtin"], "tools.builtin", false, p.builtinTool)
		m.Tools.MCP, m.Tools.MCPSpan = p.mcp(tf["mcp"])
	}
	const hook = `{"on": "on-shell", "match": "rm *", "commit_policy": "deny"}`
	if h := f["hooks"]; h != nil && p.want(h.Value, ast.Array, "hooks", "a list of hook objects", `write "hooks": [`+hook+"]") {
		m.HooksSpan = p.sp(h.Value.Span)
		for i, e := range h.Value.Elems() {
			if path := fmt.Sprintf("hooks[%d]", i); p.want(e, ast.Object, path, "an object", "write "+hook) {
				m.Hooks = append(m.Hooks, p.hook(i, e, path))
			}
		}
	}
	if ef, obj := p.sub(f, "entrypoint", "entrypoint", `write "entrypoint": {"plan": "<plan file>"}`, "plan", "command"); obj != nil {
		m.Entrypoint = p.entrypoint(ef, obj)
	}
	return m
}

func (p *manifestParser) capabilities(c *ast.Capabilities, f map[string]*ast.Member) {
	if pf, _ := p.sub(f, "plan", "capabilities.plan", `write "plan": {"submit": true}`, "submit"); pf["submit"] != nil {
		v, fix := pf["submit"].Value, `write "submit": true`
		if v.Kind == ast.String {
			fix = "write true or false without quotes"
		}
		if p.want(v, ast.Bool, "capabilities.plan.submit", "a boolean", fix) {
			c.PlanSubmit, c.PlanSubmitSpan = v.Bool, p.sp(v.Span)
		}
	}
	sf, _ := p.sub(f, "shell", "capabilities.shell", `write "shell": {"allow": ["bash"]}`, "allow", "timeout", "env")
	c.ShellAllow, c.ShellAllowSpan = p.strList(sf["allow"], "capabilities.shell.allow", false, p.binaryName)
	c.ShellTimeout = p.timeout(sf["timeout"])
	c.ShellEnv, c.ShellEnvSpan = p.env(sf["env"], "capabilities.shell.env")
	sp, _ := p.sub(f, "spawn", "capabilities.spawn", `write "spawn": {"allow": ["local/worker"]}`, "allow")
	c.SpawnAllow, c.SpawnAllowSpan = p.strList(sp["allow"], "capabilities.spawn.allow", false, p.capsuleName)
	fs, _ := p.sub(f, "filesystem", "capabilities.filesystem", `write "filesystem": {"read_only": ["src"]}`, "read_only")
	c.ReadOnly, c.ReadOnlySpan = p.strList(fs["read_only"], "capabilities.filesystem.read_only", false, p.path)
}

// mcp reads tools.mcp: servers by name, each {"command": [ARGV…]}. A server
// that is refused is left out.
func (p *manifestParser) mcp(m *ast.Member) ([]ast.MCPServer, ast.Span) {
	const fix = `write "mcp": {"fs": {"command": ["<binary>", "<argument>"]}}`
	if m == nil || !p.want(m.Value, ast.Object, "tools.mcp", "an object", fix) {
		return nil, ast.Span{}
	}
	var out []ast.MCPServer
	for _, s := range m.Value.Members() {
		path := "tools.mcp." + s.Key
		if !ast.IsCapsuleNamePart(s.Key) {
			path = fmt.Sprintf("tools.mcp[%q]", s.Key)
		}
		if s.Key == "" {
			p.report(CodeManifestBadValue, s.KeySpan(), "", "tools.mcp has a server with an empty name; name it, as in %q", "fs")
			continue
		}
		if !p.want(s.Value, ast.Object, path, "an object", fmt.Sprintf(`write %q: {"command": ["<binary>", "<argument>"]}`, s.Key)) {
			continue
		}
		srv := ast.MCPServer{Name: s.Key, NameSpan: p.sp(s.KeySpan()), Span: p.sp(s.Value.Span)}
		sf := p.fields(s.Value, path, []string{"command", "env"})
		if c := sf["command"]; c != nil {
			srv.Command, srv.CommandSpan = p.command(c, path+".command")
		} else {
			p.report(CodeManifestMissingField, s.KeySpan(), "", "%s has no %q; add \"command\": [\"<binary>\", \"<argument>\"]", path, "command")
		}
		srv.Env, srv.EnvSpan = p.env(sf["env"], path+".env")
		if srv.Command != nil {
			out = append(out, srv)
		}
	}
	return out, p.sp(m.Value.Span)
}

func (p *manifestParser) hook(i int, obj *ast.Value, path string) ast.Hook {
	h := ast.Hook{Index: i, Span: p.sp(obj.Span)}
	f := p.fields(obj, path, hookFields[:])
	if m := f["on"]; m == nil {
		p.report(CodeManifestMissingField, obj.OpenSpan(), "", "%s has no %q; add \"on\": %q or \"on\": %q", path, "on", ast.HookOnToolCall, ast.HookOnShell)
	} else if s, ok := p.str(m, path+".on", `write "on": "on-shell"`); ok && p.oneOf(m.Value, path+".on", "an event", s, ast.HookEvents()) {
		h.On, h.OnSpan = s, p.sp(m.Value.Span)
	}
	if m := f["match"]; m != nil {
		if s, ok := p.str(m, path+".match", `write "match": "rm *"`); ok && s == "" {
			p.report(CodeManifestBadValue, m.Value.Span, "", "%s.match is empty; remove it to match every call, or write a glob such as %q", path, "rm *")
		} else if ok {
			h.Match, h.MatchSpan = s, p.sp(m.Value.Span)
		}
	}
	if m := f["commit_policy"]; m == nil {
		p.report(CodeManifestMissingField, obj.OpenSpan(), "", "%s has no %q; add \"commit_policy\": %q to refuse the calls it matches", path, "commit_policy", ast.CommitDeny)
	} else if s, ok := p.str(m, path+".commit_policy", `write "commit_policy": "deny"`); ok && p.oneOf(m.Value, path+".commit_policy", "a commit policy", s, ast.CommitPolicies()) {
		h.CommitPolicy, h.CommitPolicySpan = s, p.sp(m.Value.Span)
	}
	return h
}

// entrypoint reads {"plan": FILE} or {"command": [ARGV…]}: neither is a
// missing field; both is a bad value, reported at the later key, and leaves
// the entrypoint empty.
func (p *manifestParser) entrypoint(f map[string]*ast.Member, obj *ast.Value) *ast.Entrypoint {
	e := &ast.Entrypoint{Span: p.sp(obj.Span)}
	pl, cm := f["plan"], f["command"]
	if pl == nil && cm == nil {
		p.report(CodeManifestMissingField, obj.OpenSpan(), "", "entrypoint has neither %q nor %q; add \"plan\": \"<plan file>\" or \"command\": [\"<binary>\"]", "plan", "command")
	}
	if s, ok := p.str(pl, "entrypoint.plan", `write "plan": "<plan file>"`); ok && p.planPath(pl.Value, "entrypoint.plan", s) {
		e.Plan, e.PlanSpan = s, p.sp(pl.Value.Span)
	}
	e.Command, e.CommandSpan = p.command(cm, "entrypoint.command")
	if pl != nil && cm != nil {
		later := cm
		if pl.KeySpan().Start > cm.KeySpan().Start {
			later = pl
		}
		p.report(CodeManifestBadValue, later.KeySpan(), "", "entrypoint has both %q and %q; keep one", "plan", "command")
		return &ast.Entrypoint{Span: p.sp(obj.Span)}
	}
	return e
}

// fields returns obj's known, non-null members by key and reports every
// unknown one, with a did-you-mean, or where it belongs, or the known set.
func (p *manifestParser) fields(obj *ast.Value, path string, known []string) map[string]*ast.Member {
	f := make(map[string]*ast.Member, len(known))
	where, what := path, path
	if path == "" {
		where, what = "the manifest", "a manifest"
	}
	for _, m := range obj.Members() {
		if m.Key == CommentField {
			if m.Value.Kind != ast.Null {
				where := path
				if path == "" {
					where = CommentField
				} else {
					where += "." + CommentField
				}
				p.want(m.Value, ast.String, where, "a string", "write the comment as one string")
			}
			continue
		}
		if slices.Contains(known, m.Key) {
			if m.Value.Kind != ast.Null {
				f[m.Key] = m
			}
			continue
		}
		s := ast.Suggest(m.Key, known)
		switch home := misplaced(m.Key); {
		case s != "":
			p.report(CodeManifestUnknownField, m.KeySpan(), s, "unknown field %q in %s; did you mean %q?", m.Key, where, s)
		case home != "" && (path == "" || path == "capabilities") && home != path:
			p.report(CodeManifestUnknownField, m.KeySpan(), "", "unknown field %q in %s; it belongs in %s, move it there", m.Key, where, home)
		default:
			p.report(CodeManifestUnknownField, m.KeySpan(), "", "unknown field %q in %s; %s has only %s", m.Key, where, what, ast.QuoteList(known, "and"))
		}
	}
	return f
}

// want reports v unless it has kind k.
func (p *manifestParser) want(v *ast.Value, k ast.Kind, path, what, fix string) bool {
	if v.Kind == k {
		return true
	}
	p.report(CodeManifestWrongType, v.Span, "", "%s must be %s, not %s; %s", path, what, v.Kind.Article(), fix)
	return false
}

// sub returns the known fields of the object in member key of f, and the
// object; nil when the member is absent or not an object (reported).
func (p *manifestParser) sub(f map[string]*ast.Member, key, path, fix string, known ...string) (map[string]*ast.Member, *ast.Value) {
	m := f[key]
	if m == nil || !p.want(m.Value, ast.Object, path, "an object", fix) {
		return nil, nil
	}
	return p.fields(m.Value, path, known), m.Value
}

// str returns m's string; false when m is nil or not a string (reported).
func (p *manifestParser) str(m *ast.Member, path, fix string) (string, bool) {
	if m == nil {
		return "", false
	}
	return m.Value.Str, p.want(m.Value, ast.String, path, "a string", fix)
}

// strList reads a list of strings, keeping the elements ok accepts (ok
// reports its own refusal). split says a lone string is a command line, to
// be suggested as a list of words.
func (p *manifestParser) strList(m *ast.Member, path string, split bool, ok func(*ast.Value, string, string) bool) ([]ast.NameAt, ast.Span) {
	if m == nil {
		return nil, ast.Span{}
	}
	v := m.Value
	if v.Kind != ast.Array {
		words := []string{"<name>"}
		if v.Kind == ast.String {
			words = []string{v.Str}
			if split && len(strings.Fields(v.Str)) > 0 {
				words = strings.Fields(v.Str)
			}
		}
		p.want(v, ast.Array, path, "a list of strings", "write it as a list: ["+ast.QuoteList(words, "")+"]")
		return nil, ast.Span{}
	}
	out := make([]ast.NameAt, 0, len(v.Elems()))
	for i, e := range v.Elems() {
		ep := fmt.Sprintf("%s[%d]", path, i)
		if p.want(e, ast.String, ep, "a string", "quote it, or remove it") && ok(e, ep, e.Str) {
			out = append(out, ast.NameAt{Name: e.Str, Span: p.sp(e.Span)})
		}
	}
	return out, p.sp(v.Span)
}

// command reads an argv: a non-empty list of non-empty strings. It returns
// nil when anything is wrong, so a bad command never half-starts.
func (p *manifestParser) command(m *ast.Member, path string) ([]string, ast.Span) {
	if m == nil {
		return nil, ast.Span{}
	}
	n := len(p.diags)
	words, sp := p.strList(m, path, true, func(v *ast.Value, path, s string) bool {
		return p.nonEmpty(v, path, s, "write the word or remove it")
	})
	if sp.IsValid() && len(m.Value.Elems()) == 0 {
		p.report(CodeManifestBadValue, m.Value.Span, "", "%s is empty; list the binary and its arguments, as in [\"npx\", \"-y\", \"<package>\"]", path)
	}
	if len(p.diags) > n {
		return nil, sp
	}
	return ast.Names(words), sp
}
