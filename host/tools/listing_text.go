package tools

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Listing is the inventory as `planc tools --format json` prints it and
// serve's list-tools returns it.
type Listing struct {
	// Capsule names the manifest: its path, or the embedded default.
	Capsule string     `json:"capsule"`
	Tools   []ToolInfo `json:"tools"`
}

// FormatText is the inventory as `planc tools` prints it: per tool its
// name and source, its description, and a one-line summary of its input.
func FormatText(capsule string, infos []ToolInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "capsule: %s\n", capsule)
	if len(infos) == 0 {
		b.WriteString("\nno tools\n")
	}
	for _, t := range infos {
		src := "built-in"
		if t.Source == "mcp" {
			src = fmt.Sprintf("MCP server %q", t.Server)
			if t.ReadOnly {
				src += ", read-only"
			}
		}
		fmt.Fprintf(&b, "\n%s (%s)\n", t.Name, src)
		if d := strings.TrimSpace(t.Description); d != "" {
			for line := range strings.SplitSeq(d, "\n") {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
		fmt.Fprintf(&b, "  input: %s\n", InputSummary(t.InputSchema))
		for _, f := range fieldDocs(t.InputSchema) {
			fmt.Fprintf(&b, "    %s\n", f)
		}
	}
	return b.String()
}

// InputSummary is a one-line summary of an input schema: its members,
// each with its JSON types, "?" after an optional one, and "…" when the
// schema allows members it does not name; e.g. {"path": string,
// "encoding"?: string}. A tool without a schema takes "any object".
func InputSummary(schema json.RawMessage) string {
	return summary(rootRef(schema, 8))
}

// rootRef follows a schema whose root is only a "$ref" into the same
// document ("#/$defs/args", as schema generators write one), up to
// depth links, and returns the schema it leads to; the root itself when it
// is not such a link or the link leads nowhere.
func rootRef(root json.RawMessage, depth int) json.RawMessage {
	cur := root
	for range depth {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil || m["properties"] != nil {
			return cur
		}
		var ref string
		if json.Unmarshal(m["$ref"], &ref) != nil || !strings.HasPrefix(ref, "#/") {
			return cur
		}
		next := root
		for _, tok := range strings.Split(ref[2:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			var obj map[string]json.RawMessage
			if json.Unmarshal(next, &obj) != nil || obj[tok] == nil {
				return cur
			}
			next = obj[tok]
		}
		cur = next
	}
	return cur
}

// summary is InputSummary of schema, its root's $ref followed.
func summary(schema json.RawMessage) string {
	var s struct {
		Type                 json.RawMessage            `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *json.RawMessage           `json:"additionalProperties"`
	}
	if len(schema) == 0 || string(schema) == "null" || json.Unmarshal(schema, &s) != nil {
		return "any object (the tool gives no input schema)"
	}
	names := slices.Sorted(maps.Keys(s.Properties))
	// Required members first, in the schema's order of required.
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		case ra && rb:
			return slices.Index(s.Required, a) - slices.Index(s.Required, b)
		}
		return 0
	})
	var parts []string
	for _, n := range names {
		opt := "?"
		if slices.Contains(s.Required, n) {
			opt = ""
		}
		parts = append(parts, fmt.Sprintf("%q%s: %s", n, opt, typeText(s.Properties[n])))
	}
	open := s.AdditionalProperties == nil || string(*s.AdditionalProperties) != "false"
	if open {
		parts = append(parts, "…")
	}
	if len(parts) == 0 {
		return "{} (no members)"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// typeText names the JSON types a property schema allows: "string",
// "string or null", the values of an enum, or "any".
func typeText(prop json.RawMessage) string {
	var p struct {
		Type json.RawMessage `json:"type"`
		Enum []any           `json:"enum"`
	}
	if json.Unmarshal(prop, &p) != nil {
		return "any"
	}
	if len(p.Enum) > 0 {
		var vs []string
		for _, v := range p.Enum {
			b, _ := json.Marshal(v)
			vs = append(vs, string(b))
		}
		return strings.Join(vs, " | ")
	}
	var types []string
	if json.Unmarshal(p.Type, &types) != nil {
		var one string
		if json.Unmarshal(p.Type, &one) != nil {
			return "any"
		}
		types = []string{one}
	}
	return strings.Join(types, " or ")
}

// fieldDocs are the described members of an input schema, sorted by
// name: "NAME: DESCRIPTION" each.
func fieldDocs(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(s.Properties)) {
		if d := strings.Join(strings.Fields(s.Properties[n].Description), " "); d != "" {
			out = append(out, fmt.Sprintf("%s: %s", n, d))
		}
	}
	return out
}

// Write writes the listing as `planc tools` prints it: as text
// (FormatText), or with format "json" as indented JSON, the shape serve's
// list-tools returns.
func (l Listing) Write(w io.Writer, format string) error {
	if format != "json" {
		_, err := io.WriteString(w, FormatText(l.Capsule, l.Tools))
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
