package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/planc/planc/ast"
)

// schemaURL is the address every input schema is compiled under. Each
// schema has a compiler of its own, so two tools' schemas never meet, even
// when they declare the same "$id".
const schemaURL = "urn:planc:input-schema"

// outputText is the text a $x.output reference is first tried with: any
// text a step may produce would do (S8).
const outputText = "…"

// InputSchema is one tool's input schema, compiled. The tool-input rule
// holds a tool step's input to it, and a built-in tool holds the input it is
// called with to it (Validate), so both refuse the same inputs in the same
// words. The JSON Schema semantics are santhosh-tekuri/jsonschema's; this
// type only turns its findings into planc's. It is safe for concurrent use.
type InputSchema struct {
	root *jsonschema.Schema
	mu   sync.Mutex                    // guards c, subs and refOKs
	c    *jsonschema.Compiler          // compiles locations inside the schema on demand
	subs map[string]*jsonschema.Schema // by location; nil when it did not compile
	// refOKs keeps refOK's answers.
	refOKs map[refKey]bool
	// hints keeps, by the instance location a reference stood at, a value
	// it may take that the schema there accepted (see instanceHinted).
	hints map[hintKey]any
}

// hintKey is where a hint applies: the JSON pointer of an instance
// location, and whether the reference there is a status.
type hintKey struct {
	ptr    string
	status bool
}

// CompileInputSchema compiles schema: JSON Schema text of draft 2020-12
// unless its "$schema" names another (draft-07, which many MCP servers
// write, among them). A "$ref" resolves only inside the schema itself:
// nothing is loaded from a file or the network.
func CompileInputSchema(schema json.RawMessage) (*InputSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the input schema is not JSON: %w", err)
	}
	if n := schemaNodes(doc, maxSchemaNodes+1); n > maxSchemaNodes {
		return nil, fmt.Errorf("the input schema has more than %d objects and booleans; planc holds no input to a schema this large", maxSchemaNodes)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	root, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return &InputSchema{root: root, c: c, subs: map[string]*jsonschema.Schema{}, refOKs: map[refKey]bool{}, hints: map[hintKey]any{}}, nil
}

// maxSchemaNodes bounds the objects and booleans (each a possible
// subschema) of an input schema that CompileInputSchema compiles: the
// compiler takes time quadratic in their number, and an MCP server's
// schema of 80,000 properties held planc check for a minute and a half.
// Real tools' schemas have tens or hundreds.
const maxSchemaNodes = 5000

// schemaNodes counts the objects and booleans in doc, a schema document as
// jsonschema.UnmarshalJSON returns it, stopping once it reaches limit.
func schemaNodes(doc any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n >= limit {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			n++
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case bool:
			n++
		}
	}
	walk(doc)
	return n
}

// compiled keeps the input schemas compiled in this process by their
// text: the checks of one process (planc serve checks every plan of a
// session against one capsule) compile each schema once, and share what
// refOK learns of it. It starts afresh when it holds maxCompiled.
var compiled struct {
	sync.Mutex
	m map[string]*InputSchema // nil: the schema does not compile
}

// maxCompiled bounds compiled.
const maxCompiled = 256

// compiledSchema returns schema compiled, or nil when it does not compile
// (a schema planc cannot read leaves the input to the tool).
func compiledSchema(schema json.RawMessage) *InputSchema {
	compiled.Lock()
	defer compiled.Unlock()
	if s, ok := compiled.m[string(schema)]; ok {
		return s
	}
	if compiled.m == nil || len(compiled.m) >= maxCompiled {
		compiled.m = map[string]*InputSchema{}
	}
	s, err := CompileInputSchema(schema)
	if err != nil {
		s = nil
	}
	compiled.m[string(schema)] = s
	return s
}

// noLoader refuses every schema that is not the tool's own.
type noLoader struct{}

// Load implements jsonschema.URLLoader.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s; only references inside a tool's own schema resolve", url)
}

// sub returns the compiled schema at url, a location inside s as a
// ValidationError's SchemaURL gives it, or nil when it does not compile.
func (s *InputSchema) sub(url string) *jsonschema.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	sch, ok := s.subs[url]
	if !ok {
		sch, _ = s.c.Compile(url)
		s.subs[url] = sch
	}
	return sch
}

// Validate holds input, JSON text (empty is {}), to the schema: nil when it
// satisfies it, else an error that says every way it does not, in the
// words of the tool-input rule (without positions).
func (s *InputSchema) Validate(input json.RawMessage) error {
	var inst any = map[string]any{}
	if len(bytes.TrimSpace(input)) > 0 {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
		if err != nil {
			return fmt.Errorf("the input is not JSON: %v", err)
		}
		inst = v
	}
	fs := s.check(inst, nil)
	if len(fs) == 0 {
		return nil
	}
	var msgs []string
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		// The unknown fields of one object make one message.
		for f.kind == findUnknown && i+1 < len(fs) && fs[i+1].kind == findUnknown && slices.Equal(fs[i+1].loc, f.loc) {
			f.keys = append(slices.Clip(f.keys), fs[i+1].keys...)
			i++
		}
		msgs = append(msgs, f.message())
	}
	return errors.New(strings.Join(msgs, "; "))
}

// instRefs tells where references stand in an instance: the whole-string
// references of a step's input, replaced in the instance by a value they
// may take.
type instRefs interface {
	// at returns the reference standing at loc, or nil.
	at(loc []string) *ast.Ref
	// under reports whether a reference stands at loc or inside it.
	under(loc []string) bool
}

// check validates inst and returns what is wrong with it, sorted by
// location. refs (nil when none) marks the values that stand for a
// reference: a failure there counts only when no value the reference may
// take (S8) satisfies the schema at that place.
func (s *InputSchema) check(inst any, refs instRefs) []finding {
	err := s.root.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []finding{{kind: findValue, msg: err.Error()}}
	}
	if refCycle(ve) {
		// The schema refers to itself without ever reaching a keyword
		// ({"$ref": "#"} at its root): no input satisfies it, and the
		// fault is the tool's, not the input's. Like a schema that does
		// not compile, it leaves the input to the tool.
		return nil
	}
	v := &validation{s: s, refs: refs, inst: inst}
	if v.satisfiable(ve) {
		return nil
	}
	v.collect(ve)
	slices.SortStableFunc(v.out, func(a, b finding) int {
		if c := strings.Compare(pointer(a.loc), pointer(b.loc)); c != 0 {
			return c
		}
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		return strings.Compare(a.message(), b.message())
	})
	out := slices.CompactFunc(v.out, func(a, b finding) bool {
		return a.kind == b.kind && slices.Equal(a.loc, b.loc) && a.message() == b.message()
	})
	// A misspelt member the schema refuses is said at the member
	// (findUnknown, with its did-you-mean): the absent one keeps its fix.
	for i := range out {
		if out[i].kind != findMissing || out[i].guess == "" {
			continue
		}
		for _, u := range out {
			if u.kind == findUnknown && slices.Equal(u.loc, out[i].loc) && slices.Contains(u.keys, out[i].guess) {
				out[i].guess = ""
			}
		}
	}
	// One unknown property beside one absent required property, at the
	// same place, is most likely that property misnamed.
	for i := 0; i+1 < len(out); i++ {
		m, u := &out[i], &out[i+1]
		if m.kind == findMissing && u.kind == findUnknown && slices.Equal(m.loc, u.loc) &&
			len(m.keys) == 1 && len(u.keys) == 1 && (i+2 == len(out) || out[i+2].kind != findUnknown || !slices.Equal(out[i+2].loc, u.loc)) {
			u.guess = m.keys[0]
		}
	}
	return out
}

// refCycle reports whether e, or a failure beneath it, is a reference
// cycle of the schema.
func refCycle(e *jsonschema.ValidationError) bool {
	if _, ok := e.ErrorKind.(*kind.RefCycle); ok {
		return true
	}
	return slices.ContainsFunc(e.Causes, refCycle)
}

// validation is one check of one instance.
type validation struct {
	s    *InputSchema
	refs instRefs
	inst any
	out  []finding
}

// collect adds the findings of e, a failure that is not satisfiable.
func (v *validation) collect(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		v.alternatives(e, "anyOf")
		return
	case *kind.OneOf:
		if k.Subschemas == nil {
			v.alternatives(e, "oneOf")
			return
		}
	case *kind.PropertyNames:
		// The key is the value its causes are about, at no place of the
		// input's own: say which object has it.
		why := "does not satisfy the schema's propertyNames"
		c := e
		for len(c.Causes) == 1 {
			c = c.Causes[0]
		}
		switch ck := c.ErrorKind.(type) {
		case *kind.Pattern:
			why = fmt.Sprintf("does not match the pattern %q the schema holds keys to", ck.Want)
		case *kind.MinLength, *kind.MaxLength, *kind.Enum, *kind.Const:
			why = "is not a key the schema allows there: " + c.ErrorKind.LocalizedString(printer)
		}
		loc := keyHolder(v.inst, e.InstanceLocation, k.Property)
		v.add(findValue, loc, fmt.Sprintf("%s has the key %q, which %s; rename or remove it", where(loc), k.Property, why))
		return
	}
	if len(e.Causes) == 0 {
		v.leaf(e)
		return
	}
	for _, c := range e.Causes {
		if !v.satisfiable(c) {
			v.collect(c)
		}
	}
}

// alternatives adds the findings of an anyOf or oneOf that no alternative
// satisfies. An alternative is not the one the input meant when it wants
// another type at the same place, or another constant in a property (a
// "kind" that tells the forms apart). When one alternative is left, its
// findings are the input's; when none is, the value has none of the types,
// or the property none of the constants, wanted.
func (v *validation) alternatives(e *jsonschema.ValidationError, kw string) {
	loc := e.InstanceLocation
	var meant []*jsonschema.ValidationError
	var types []string
	var tags []*jsonschema.ValidationError // the const failures that rule alternatives out
	got := ""
	for _, c := range e.Causes {
		if t := typeAt(c, loc); t != nil {
			types, got = append(types, t.Want...), t.Got
		} else if tag := v.tagAt(c, loc); tag != nil {
			tags = append(tags, tag)
		} else {
			meant = append(meant, c)
		}
	}
	switch {
	case len(meant) == 1:
		v.collect(meant[0])
	case len(meant) == 0 && len(tags) == 0:
		v.add(findValue, loc, v.typeMessage(loc, types, got, ""))
	case len(meant) == 0 && len(types) == 0 && sameLoc(tags):
		var want []any
		for _, t := range tags {
			want = append(want, t.ErrorKind.(*kind.Const).Want)
		}
		tloc := tags[0].InstanceLocation
		v.add(findValue, tloc, v.enumMessage(tloc, want, instanceAt(v.inst, tloc)))
	default:
		v.add(findValue, loc, fmt.Sprintf("%s matches none of the forms the schema allows (%s)", where(loc), kw))
	}
}

// tagAt returns the failure of a const, on a literal property of the
// object at loc, that is among the failures of alternative e: a tag the
// alternative does not carry.
func (v *validation) tagAt(e *jsonschema.ValidationError, loc []string) *jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.Causes) == 0 {
		if len(e.InstanceLocation) == len(loc)+1 && slices.Equal(e.InstanceLocation[:len(loc)], loc) && v.refAt(e.InstanceLocation) == nil {
			return e
		}
		return nil
	}
	for _, c := range e.Causes {
		if t := v.tagAt(c, loc); t != nil {
			return t
		}
	}
	return nil
}

// sameLoc reports whether every failure of es is about one place.
func sameLoc(es []*jsonschema.ValidationError) bool {
	for _, e := range es[1:] {
		if !slices.Equal(e.InstanceLocation, es[0].InstanceLocation) {
			return false
		}
	}
	return true
}

// typeAt returns the type failure e is, when it is only that and about the
// value at loc.
func typeAt(e *jsonschema.ValidationError, loc []string) *kind.Type {
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	if t, ok := e.ErrorKind.(*kind.Type); ok && len(e.Causes) == 0 && slices.Equal(e.InstanceLocation, loc) {
		return t
	}
	return nil
}

// leaf adds the finding of one failing keyword.
func (v *validation) leaf(e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		sch := v.s.sub(e.SchemaURL)
		f := finding{loc: loc, kind: findMissing, keys: k.Missing, shape: describe(sch)}
		if len(k.Missing) == 1 {
			// A schema that allows other members says nothing of a
			// misspelt one: the member it does not name that is closest
			// to the absent one is most likely it.
			f.guess = ast.Suggest(k.Missing[0], extraKeys(instanceAt(v.inst, loc), propNames(sch)))
		}
		v.out = append(v.out, f)
		return
	case *kind.AdditionalProperties:
		sch := v.s.sub(e.SchemaURL)
		keys := slices.Sorted(slices.Values(k.Properties))
		v.out = append(v.out, finding{loc: loc, kind: findUnknown, keys: keys, known: propNames(sch), shape: describe(sch)})
		return
	case *kind.FalseSchema, *kind.Not:
		// additionalProperties or unevaluatedProperties written as a
		// schema that nothing satisfies: the property is unknown.
		for _, kw := range []string{"/additionalProperties", "/unevaluatedProperties"} {
			if parent, ok := strings.CutSuffix(e.SchemaURL, kw); ok && len(loc) > 0 {
				sch := v.s.sub(parent)
				v.out = append(v.out, finding{loc: loc[:len(loc)-1], kind: findUnknown, keys: loc[len(loc)-1:],
					known: propNames(sch), shape: describe(sch)})
				return
			}
		}
	case *kind.Type:
		v.add(findValue, loc, v.typeMessage(loc, k.Want, k.Got, e.SchemaURL))
		return
	case *kind.Enum:
		v.add(findValue, loc, v.enumMessage(loc, k.Want, k.Got))
		return
	case *kind.Const:
		v.add(findValue, loc, v.enumMessage(loc, []any{k.Want}, k.Got))
		return
	}
	msg := boundMessage(where(loc), e.ErrorKind, instanceAt(v.inst, loc))
	if msg == "" {
		msg = fmt.Sprintf("%s does not satisfy the schema: %s", where(loc), e.ErrorKind.LocalizedString(printer))
	}
	if r := v.refAt(loc); r != nil {
		msg = fmt.Sprintf("%s, whatever %s turns out to be", msg, r)
	}
	v.add(findValue, loc, msg)
}

// add appends a finding with a whole message.
func (v *validation) add(k findingKind, loc []string, msg string) {
	v.out = append(v.out, finding{loc: loc, kind: k, msg: msg})
}

// refAt returns the reference standing at loc, or nil.
func (v *validation) refAt(loc []string) *ast.Ref {
	if v.refs == nil {
		return nil
	}
	return v.refs.at(loc)
}

// keyHolder returns the place of the object in inst that holds key: loc
// when the object there does, else the first such object in the order of
// the places (sorted). The validator's propertyNames failure can carry
// the place of a sibling instead (santhosh-tekuri/jsonschema v6.0.3 reuses
// the slice it builds places in), which would move the finding from run
// to run.
func keyHolder(inst any, loc []string, key string) []string {
	if m, ok := instanceAt(inst, loc).(map[string]any); ok {
		if _, ok := m[key]; ok {
			return slices.Clone(loc)
		}
	}
	var found [][]string
	var walk func(v any, at []string)
	walk = func(v any, at []string) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x[key]; ok {
				found = append(found, slices.Clone(at))
			}
			for k, e := range x {
				walk(e, append(at, k))
			}
		case []any:
			for i, e := range x {
				walk(e, append(at, strconv.Itoa(i)))
			}
		}
	}
	walk(inst, nil)
	if len(found) == 0 {
		return slices.Clone(loc)
	}
	slices.SortFunc(found, slices.Compare)
	return found[0]
}

// instanceAt returns the value at the instance location loc inside inst,
// or nil.
func instanceAt(inst any, loc []string) any {
	for _, t := range loc {
		switch x := inst.(type) {
		case map[string]any:
			inst = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			inst = x[i]
		default:
			return nil
		}
	}
	return inst
}

// extraKeys returns the members of obj (when it is an object) that known
// does not name, sorted.
func extraKeys(obj any, known []string) []string {
	m, ok := obj.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k := range m {
		if !slices.Contains(known, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
