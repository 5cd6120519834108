package ast

import (
	"fmt"
	"strings"
)

// EnvVar is one variable a manifest sets for the processes a capsule
// starts: a member of capabilities.shell.env or of an MCP server's env.
type EnvVar struct {
	// Name is the variable's name (IsEnvName).
	Name     string
	NameSpan Span // the key, quotes included
	// Value is a template: ${NAME} stands for planc's own variable NAME,
	// $$ for one "$" (ParseEnvValue).
	Value     string
	ValueSpan Span
}

// EnvMap returns vars as a map from name to value template; nil for none.
func EnvMap(vars []EnvVar) map[string]string {
	if len(vars) == 0 {
		return nil
	}
	m := make(map[string]string, len(vars))
	for _, v := range vars {
		m[v.Name] = v.Value
	}
	return m
}

// IsEnvName reports whether s may name a variable in a manifest: a letter
// or "_", then letters, digits and "_".
func IsEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// EnvPart is one part of a value template: literal text, or a reference
// to a variable of planc's environment.
type EnvPart struct {
	Lit string // the text, when Ref is ""
	Ref string // the name of ${NAME}
}

// ParseEnvValue splits a value template into its parts: ${NAME} is a
// reference (NAME as IsEnvName says), $$ is one "$", and any other "$" is
// itself. It fails on a "${" that does not open a reference closed by
// "}"; the error says what is wrong, without position or fix.
func ParseEnvValue(v string) ([]EnvPart, error) {
	var parts []EnvPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, EnvPart{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(v); i++ {
		if v[i] != '$' || i+1 == len(v) || v[i+1] != '$' && v[i+1] != '{' {
			lit.WriteByte(v[i])
			continue
		}
		if v[i+1] == '$' {
			lit.WriteByte('$')
			i++
			continue
		}
		end := strings.IndexByte(v[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%q has a \"${\" that no \"}\" closes", v)
		}
		name := v[i+2 : i+end]
		if !IsEnvName(name) {
			return nil, fmt.Errorf("%q is not a reference to a variable", v[i:i+end+1])
		}
		flush()
		parts = append(parts, EnvPart{Ref: name})
		i += end
	}
	flush()
	return parts, nil
}
