package check

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/planc/planc/ast"
)

// ruleToolInput refuses a tool step whose input does not satisfy its
// tool's input schema: a built-in tool's (host/toolschema) or the
// inputSchema an MCP server lists. A literal is held to the schema as it
// is; a whole-string reference stands for every value it may take (S8), so
// it fails only where none of them would do. Every tool of a capsule's
// inventory takes an object (MCP tool arguments are one), so a string
// input is refused for any of them, schema or not. It needs capabilities:
// a host that embeds planc may have tools of its own.
var ruleToolInput = Rule{
	Code:      "tool-input",
	Severity:  ast.Error,
	Doc:       "a tool step's input is not an object, or does not satisfy the tool's input schema",
	Example:   `{"id": "w", "tool": "write-file", "input": {"file": "x", "text": "y"}}`,
	NeedsCaps: true,
	plan:      func(p *Pass, r *Rule) { p.inputs = newInputSchemas(p.Caps, len(p.Plan.Steps)) },
	on:        onTool,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindTool || s.TargetField().Kind != ast.String {
			return
		}
		tool := s.Target
		schema, known := p.inputs.get(tool)
		if !known {
			return // unknown-tool's, or an MCP tool not listed yet
		}
		in := s.InputField()
		if in != nil && s.Input.Kind == ast.String {
			fix := `write "input": {"<field>": "<value>"}`
			if schema != nil {
				if sh := describe(schema.root); sh != "" {
					fix = `write "input": ` + sh
				}
			}
			p.report(r, s, s.Input.Span, "", "tool %q: a tool step's input must be an object, not a string; %s", tool, fix)
			return
		}
		if schema == nil || in != nil && s.Input.Kind != ast.Object {
			return // no schema, or wrong-type's
		}
		var root *ast.Value
		var inst any
		var refs instRefs
		if in == nil {
			inst = map[string]any{}
		} else {
			root = s.Input
			// An input this check already found valid for this tool (the
			// same values, references of the same kinds at the same
			// places) is valid again: plans repeat inputs.
			p.inputs.key = appendKey(append(append(strconv.AppendInt(p.inputs.key[:0], int64(len(tool)), 10), ':'), tool...), root)
			if _, ok := p.inputs.valid[string(p.inputs.key)]; ok {
				return
			}
			for _, ref := range s.Refs {
				if !ref.InIf {
					refs = astRefs{root}
					break
				}
			}
			// A value a reference at the same place passed with before
			// may spare the failure analysis (instanceHinted).
			if refs != nil {
				if hinted, ok := schema.instanceHinted(root); ok && schema.root.Validate(hinted) == nil {
					p.inputs.markValid()
					return
				}
			}
			inst = instance(root)
		}
		fs := schema.check(inst, refs)
		if len(fs) == 0 && root != nil {
			p.inputs.markValid()
		}
		for _, f := range fs {
			reportFinding(p, r, s, root, f)
		}
	},
}

// appendKey appends to b a text that determines v as tool-input validates
// it: its values, and the kind of each reference in place of its text.
// Numbers, strings and keys carry their length and a colon before their
// text, so two values never share a key.
func appendKey(b []byte, v *ast.Value) []byte {
	switch v.Kind {
	case ast.Null:
		return append(b, 'n')
	case ast.Bool:
		if v.Bool {
			return append(b, 't')
		}
		return append(b, 'f')
	case ast.Number:
		return append(append(strconv.AppendInt(append(b, 'N'), int64(len(v.Str)), 10), ':'), v.Str...)
	case ast.String:
		if v.Ref() != nil {
			return append(b, 'R', byte('0'+v.Ref().Field))
		}
		return append(append(strconv.AppendInt(append(b, 'S'), int64(len(v.Str)), 10), ':'), v.Str...)
	case ast.Array:
		b = append(b, '[')
		for _, e := range v.Elems() {
			b = appendKey(b, e)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for _, m := range v.Members() {
		b = append(append(strconv.AppendInt(append(b, 'K'), int64(len(m.Key)), 10), ':'), m.Key...)
		b = appendKey(b, m.Value)
	}
	return append(b, '}')
}

// reportFinding reports f, found in the input root (nil when the step has
// none), at the member or value it is about.
func reportFinding(p *Pass, r *Rule, s *ast.Step, root *ast.Value, f finding) {
	tool := s.Target
	if root == nil {
		msg := f.message()
		if f.kind == findMissing {
			shape := f.shape
			if shape == "" {
				shape = "{" + strings.Join(quoteEach(f.keys, `: "…"`), ", ") + "}"
			}
			msg = fmt.Sprintf("the step has no input, and the tool needs %s; add \"input\": %s", ast.QuoteList(f.keys, ""), shape)
		}
		p.report(r, s, s.TargetField().KeySpan(), "", "tool %q: %s", tool, msg)
		return
	}
	v := locate(root, f.loc)
	if v == nil {
		v = root
	}
	switch f.kind {
	case findMissing:
		p.report(r, s, v.OpenSpan(), "", "tool %q: %s", tool, f.message())
	case findUnknown:
		for _, key := range f.keys {
			one := f
			one.keys = []string{key}
			sp := v.Span
			if m := v.Get(key); m != nil {
				sp = m.KeySpan()
			}
			p.report(r, s, sp, cmpOr(ast.Suggest(key, f.known), f.guess), "tool %q: %s", tool, one.message())
		}
	default:
		p.report(r, s, v.Span, "", "tool %q: %s", tool, f.message())
	}
}

// quoteEach returns each of names quoted and followed by suffix.
func quoteEach(names []string, suffix string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n) + suffix
	}
	return out
}

// inputSchemas finds the tool schemas of the capabilities, compiled (each
// at most once per check, and once per process: compiledSchema), for the
// tools of the inventory.
type inputSchemas struct {
	raw   map[string]json.RawMessage
	tools map[string]*toolSchema // the inventory
	// valid holds the keys (the tool's name, then appendKey) of the inputs found
	// valid in this check; key is the current step's.
	valid map[string]struct{}
	key   []byte
	steps int // the plan's, to size valid
}

// markValid records the current step's input (key) as valid.
func (is *inputSchemas) markValid() {
	if is.valid == nil {
		is.valid = make(map[string]struct{}, min(is.steps, 1024))
	}
	is.valid[string(is.key)] = struct{}{}
}

// toolSchema is one tool's schema, once looked up.
type toolSchema struct {
	schema *InputSchema // nil: no usable schema
	looked bool
}

// newInputSchemas returns the inputSchemas of c, for a plan of n steps.
func newInputSchemas(c *Capabilities, n int) *inputSchemas {
	is := &inputSchemas{raw: c.ToolSchemas, tools: make(map[string]*toolSchema, len(c.Tools)), steps: n}
	for _, t := range c.Tools {
		is.tools[t] = &toolSchema{}
	}
	return is
}

// get reports whether tool is in the inventory, and returns its compiled
// schema: nil when it has none or its schema does not compile (a schema
// planc cannot read leaves the input to the tool).
func (is *inputSchemas) get(tool string) (*InputSchema, bool) {
	t := is.tools[tool]
	if t == nil {
		return nil, false
	}
	if !t.looked {
		if raw, has := is.raw[tool]; has {
			t.schema = compiledSchema(raw)
		}
		t.looked = true
	}
	return t.schema, true
}

// instance returns v as the schema library reads JSON: a reference is
// replaced by a value it may take (S8), which validation then widens to
// all of them.
func instance(v *ast.Value) any {
	switch v.Kind {
	case ast.Bool:
		return v.Bool
	case ast.Number:
		return json.Number(v.Str)
	case ast.String:
		if v.Ref() == nil {
			return v.Str
		}
		if v.Ref().Field == ast.RefStatus {
			return "success"
		}
		return outputText
	case ast.Array:
		out := make([]any, len(v.Elems()))
		for i, e := range v.Elems() {
			out[i] = instance(e)
		}
		return out
	case ast.Object:
		out := make(map[string]any, len(v.Members()))
		for _, m := range v.Members() {
			out[m.Key] = instance(m.Value)
		}
		return out
	}
	return nil
}

// locate returns the value at the instance location loc inside root, or
// nil.
func locate(root *ast.Value, loc []string) *ast.Value {
	v := root
	for _, t := range loc {
		switch v.Kind {
		case ast.Object:
			m := v.Get(t)
			if m == nil {
				return nil
			}
			v = m.Value
		case ast.Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v.Elems()) {
				return nil
			}
			v = v.Elems()[i]
		default:
			return nil
		}
	}
	return v
}

// astRefs finds the references of a step's input by walking its AST.
type astRefs struct{ root *ast.Value }

func (a astRefs) at(loc []string) *ast.Ref {
	if v := locate(a.root, loc); v != nil {
		return v.Ref()
	}
	return nil
}

func (a astRefs) under(loc []string) bool {
	v := locate(a.root, loc)
	found := false
	ast.Walk(v, func(x *ast.Value) bool {
		found = found || x.Ref() != nil
		return !found
	})
	return found
}
