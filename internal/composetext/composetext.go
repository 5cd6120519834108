// Package composetext reads the templates of the built-in tool compose: a
// text with placeholders {name}, where {{ and }} stand for { and }. The
// check of a plan (check's compose-values rule) and the tool itself
// (host/tools) read a template with the same Parse, so both refuse the
// same templates in the same words.
package composetext

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Part is one piece of a template: literal text, or a placeholder.
type Part struct {
	// Text is the literal text (braces unescaped) when Name is "".
	Text string
	// Name is the placeholder's name; Offset is the byte offset of its "{"
	// in the template.
	Name   string
	Offset int
}

// Error is a template that does not parse: what is wrong, at which byte
// offset of the template, and the fix.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("template, at byte %d: %s", e.Offset, e.Msg) }

// ValidName reports whether name may name a placeholder: a letter or "_",
// then letters, digits, "_" or "-".
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c == '-' || c >= '0' && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// Parse splits template into its parts. A "{" opens a placeholder unless
// doubled; a "}" outside a placeholder must be doubled.
func Parse(template string) ([]Part, error) {
	var parts []Part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, Part{Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch c {
		case '{':
			if i+1 < len(template) && template[i+1] == '{' {
				lit.WriteByte('{')
				i++
				continue
			}
			end := strings.IndexByte(template[i+1:], '}')
			if end < 0 {
				return nil, &Error{Offset: i, Msg: `"{" opens a placeholder that no "}" closes; write "{{" for a literal "{"`}
			}
			name := template[i+1 : i+1+end]
			if !ValidName(name) {
				return nil, &Error{Offset: i, Msg: fmt.Sprintf(`placeholder %q is not a name (a letter or "_", then letters, digits, "_" or "-"); write "{{" for a literal "{"`, "{"+name+"}")}
			}
			flush()
			parts = append(parts, Part{Name: name, Offset: i})
			i += end + 1
		case '}':
			if i+1 < len(template) && template[i+1] == '}' {
				lit.WriteByte('}')
				i++
				continue
			}
			return nil, &Error{Offset: i, Msg: `a "}" closes no placeholder; write "}}" for a literal "}"`}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

// Names returns the placeholders' names of parts, each once, in order of
// first use.
func Names(parts []Part) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		if p.Name != "" && !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	return out
}

// Fill returns parts with each placeholder replaced by its value. Every
// placeholder must have a value and every value must be used; an error
// names the first one in order that does not (placeholders in template
// order, values sorted by name).
func Fill(parts []Part, values map[string]string) (string, error) {
	used := map[string]bool{}
	var b strings.Builder
	for _, p := range parts {
		if p.Name == "" {
			b.WriteString(p.Text)
			continue
		}
		v, ok := values[p.Name]
		if !ok {
			return "", fmt.Errorf("placeholder {%s} has no value; add %q to \"values\"", p.Name, p.Name)
		}
		used[p.Name] = true
		b.WriteString(v)
	}
	for _, n := range slices.Sorted(maps.Keys(values)) {
		switch {
		case used[n]:
		case !ValidName(n):
			return "", fmt.Errorf("value %q is not used by the template, and no placeholder can name it: a name is a letter or _, then letters, digits, _ or -; rename the value or remove it", n)
		default:
			return "", fmt.Errorf("value %q is not used by the template; add {%s} to the template or remove the value", n, n)
		}
	}
	return b.String(), nil
}
