package check

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/planc/planc/ast"
)

// printer renders the schema library's own text for the keywords planc
// has no words of its own for (minimum, pattern, uniqueItems, …).
var printer = message.NewPrinter(language.English)

// findingKind says what a finding is about, and so where it points.
type findingKind uint8

// The kinds of findings. The order is the order of the findings at one
// place.
const (
	findMissing findingKind = iota // required properties absent: at the object
	findUnknown                    // properties the schema does not allow: at each key
	findValue                      // a value of the wrong type or value: at the value
)

// finding is one thing wrong with an input, at the instance location loc.
type finding struct {
	loc  []string
	kind findingKind
	// keys are the properties absent (findMissing) or not allowed
	// (findUnknown), sorted for findUnknown.
	keys []string
	// known are the properties the schema names at loc (findUnknown), for
	// did-you-mean; shape is what the object at loc holds, e.g.
	// {"path": "…"} ("" when the schema does not say).
	known []string
	shape string
	// guess is, for findUnknown, the property an unknown one most likely
	// stands for when no name is close: the one required property absent
	// beside it; for findMissing, the member the schema does not name
	// that is closest to the one absent property (a schema that allows
	// other members reports no unknown one).
	guess string
	msg   string // the whole message of a findValue
}

// message says what is wrong: for a findUnknown of one key, with the
// closest property the schema names.
func (f finding) message() string {
	w := where(f.loc)
	switch f.kind {
	case findMissing:
		msg := fmt.Sprintf("%s has no %s", w, ast.QuoteList(f.keys, ""))
		if f.guess != "" {
			return msg + fmt.Sprintf("; did you mean %q? rename %q to %q", f.guess, f.guess, f.keys[0])
		}
		if f.shape != "" {
			msg += "; " + takes(f.loc, f.shape)
		}
		return msg
	case findUnknown:
		msg := fmt.Sprintf("unknown input field %s", ast.QuoteList(f.keys, ""))
		if len(f.loc) > 0 {
			msg = fmt.Sprintf("unknown field %s in %s", ast.QuoteList(f.keys, ""), w)
		}
		if len(f.keys) == 1 {
			if s := cmpOr(ast.Suggest(f.keys[0], f.known), f.guess); s != "" {
				return msg + didYouMean(s)
			}
		}
		switch {
		case f.shape != "":
			msg += "; " + takes(f.loc, f.shape)
		case len(f.known) == 0:
			msg += "; " + takes(f.loc, "no fields")
		}
		return msg
	}
	return f.msg
}

// takes says what the object at loc takes: "the tool takes X" for the
// input itself, "\"filters\" takes X" inside it.
func takes(loc []string, what string) string {
	if len(loc) == 0 {
		return "the tool takes " + what
	}
	return where(loc) + " takes " + what
}

// cmpOr returns a, or b when a is empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// where names the place loc in messages: "the input", or the JSON pointer
// inside it without its leading slash, quoted ("options/color").
func where(loc []string) string {
	if len(loc) == 0 {
		return "the input"
	}
	return strconv.Quote(pointer(loc)[1:])
}

// pointer returns loc as a JSON pointer (RFC 6901): "" for the whole input.
func pointer(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// typeMessage says that the value at loc has type got where the schema
// (at url, "" when unknown) wants one of want.
func (v *validation) typeMessage(loc, want []string, got, url string) string {
	w, ws := where(loc), typeWords(want)
	if r := v.refAt(loc); r != nil {
		return fmt.Sprintf("%s must be %s, but %s stands there, which is %s when the step runs (S8)", w, ws, r, refValues(r))
	}
	if got == "null" && slices.Contains(want, "string") {
		return fmt.Sprintf("%s is null; it must be %s (a reference to a step that produced no output reads as null)", w, ws)
	}
	val := instanceAt(v.inst, loc)
	msg := fmt.Sprintf("%s must be %s, not %s", w, ws, gotWords(got, val, want))
	if slices.Contains(want, "object") && url != "" {
		if sh := describe(v.s.sub(url)); sh != "" {
			msg += "; " + takes(loc, sh)
		}
	}
	return msg
}

// enumMessage says that the value at loc (got) is none of want.
func (v *validation) enumMessage(loc []string, want []any, got any) string {
	vals := make([]string, len(want))
	for i, x := range want {
		vals[i] = jsonText(x)
	}
	what := "one of " + strings.Join(vals, ", ")
	if len(vals) == 1 {
		what = vals[0]
	}
	if r := v.refAt(loc); r != nil {
		return fmt.Sprintf("%s must be %s, but %s stands there, which is %s when the step runs (S8)", where(loc), what, r, refValues(r))
	}
	msg := fmt.Sprintf("%s must be %s, not %s", where(loc), what, jsonText(got))
	if s, ok := got.(string); ok {
		var texts []string
		for _, x := range want {
			if t, ok := x.(string); ok {
				texts = append(texts, t)
			}
		}
		msg += didYouMean(ast.Suggest(s, texts))
	}
	return msg
}

// boundMessage says that w, whose value is val, is out of a bound of
// keyword k (a length, a count, a range, a pattern); "" for other keywords.
func boundMessage(w string, k jsonschema.ErrorKind, val any) string {
	switch k := k.(type) {
	case *kind.MinLength:
		if k.Got == 0 {
			return fmt.Sprintf("%s must not be empty", w)
		}
		return fmt.Sprintf("%s must have at least %d characters, not %d", w, k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("%s must have at most %d characters, not %d", w, k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("%s must have at least %d elements, not %d", w, k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("%s must have at most %d elements, not %d", w, k.Want, k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("%s must be at least %s, not %s", w, k.Want.RatString(), jsonText(val))
	case *kind.Maximum:
		return fmt.Sprintf("%s must be at most %s, not %s", w, k.Want.RatString(), jsonText(val))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s must be greater than %s, not %s", w, k.Want.RatString(), jsonText(val))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("%s must be less than %s, not %s", w, k.Want.RatString(), jsonText(val))
	case *kind.Pattern:
		return fmt.Sprintf("%s must match the pattern %q, and %q does not", w, k.Want, k.Got)
	}
	return ""
}

// refValues says what reference r takes the place of (S8).
func refValues(r *ast.Ref) string {
	if r.Field == ast.RefStatus {
		return `"success", "failed" or "skipped"`
	}
	return "a string or null"
}

// typeWords names JSON Schema types as messages do: "a string or null".
func typeWords(types []string) string {
	var words []string
	null := false
	for _, t := range types {
		switch t {
		case "null":
			null = true
			continue
		case "integer":
			if slices.Contains(types, "number") {
				continue // number covers it
			}
		}
		if w := typeWord(t); !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if null {
		words = append(words, "null")
	}
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// typeWord names one JSON Schema type with its article.
func typeWord(t string) string {
	switch t {
	case "integer":
		return "an integer"
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "null":
		return "null"
	}
	return "a " + t
}

// gotWords names the value val, of JSON Schema type got, where want is
// wanted: a fraction where an integer is wanted is shown as written.
func gotWords(got string, val any, want []string) string {
	if n, ok := val.(json.Number); ok && slices.Contains(want, "integer") {
		return string(n)
	}
	return typeWord(got)
}

// jsonText renders a value of the schema library's (json.Number numbers)
// as JSON text.
func jsonText(x any) string {
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}

// deref follows a schema that is only a $ref to the schema it names.
func deref(s *jsonschema.Schema) *jsonschema.Schema {
	for range 16 {
		if s == nil || s.Ref == nil || s.Types != nil || len(s.Properties) > 0 {
			break
		}
		s = s.Ref
	}
	return s
}

// propNames returns the properties schema s names, sorted.
func propNames(s *jsonschema.Schema) []string {
	s = deref(s)
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.Properties))
}

// maxShape is how many properties a shape shows before "…".
const maxShape = 6

// describe returns what an object that schema s wants holds, as an
// example: its required properties in order, then the others sorted, as in
// {"path": "…", "content": "…"}. It is "" when s names no property.
func describe(s *jsonschema.Schema) string {
	s = deref(s)
	if s == nil || len(s.Properties) == 0 {
		return ""
	}
	names := slices.Clone(s.Required)
	for _, n := range propNames(s) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var parts []string
	for i, n := range names {
		if i == maxShape {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%q: %s", n, example(s.Properties[n])))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// example returns a value of the kind schema s wants, for shapes.
func example(s *jsonschema.Schema) string {
	s = deref(s)
	switch {
	case s == nil:
		return `"…"`
	case s.Const != nil:
		return jsonText(*s.Const)
	case s.Enum != nil && len(s.Enum.Values) > 0:
		return jsonText(s.Enum.Values[0])
	case s.Types != nil:
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "integer", "number":
				return "0"
			case "boolean":
				return "false"
			case "array":
				return "[]"
			case "object":
				return "{}"
			case "string":
				return `"…"`
			}
		}
		return "null"
	case len(s.AnyOf) > 0:
		return example(s.AnyOf[0])
	case len(s.OneOf) > 0:
		return example(s.OneOf[0])
	}
	return `"…"`
}
