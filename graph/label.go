package graph

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/planc/planc/ir"
)

// maxLine is the length, in characters, past which a label line is cut
// with "…": a long shell command or condition would make a node as wide as
// the page. DOT tooltips keep the whole text.
const maxLine = 48

// node is what both drawings show of one step.
type node struct {
	name  string   // the node's name in the drawing: [A-Za-z0-9_] only
	lines []string // the label's lines, display-safe and cut
	kind  ir.Kind
	cond  string // the condition's canonical text, display-safe; "" for none
	// tolerant is set when on_error is skip or continue: the step's
	// failure does not stop the plan.
	tolerant bool
	tooltip  []string // the tooltip's lines, display-safe, not cut
}

// nodes describes every step of p, naming each node after its step id.
func nodes(p *ir.Program) []node {
	names := nodeNames(p)
	out := make([]node, len(p.Steps))
	for i := range p.Steps {
		s := &p.Steps[i]
		target := s.Kind.String() + " " + clean(s.Target)
		n := node{name: names[i], kind: s.Kind, tolerant: s.OnError != ir.OnErrorFail}
		n.lines = []string{cut(clean(s.ID)), cut(target)}
		n.tooltip = []string{clean(s.ID), target}
		if s.Cond != nil {
			n.cond = clean(s.Cond.Source)
			n.lines = append(n.lines, cut("if "+n.cond))
			n.tooltip = append(n.tooltip, "if "+n.cond)
		}
		if n.tolerant {
			n.lines = append(n.lines, "on_error "+s.OnError.String())
			n.tooltip = append(n.tooltip, "on_error "+s.OnError.String())
		}
		if s.Retries > 0 {
			n.lines = append(n.lines, "retries "+strconv.Itoa(s.Retries))
			n.tooltip = append(n.tooltip, "retries "+strconv.Itoa(s.Retries))
		}
		out[i] = n
	}
	return out
}

// nodeNames gives every step a node name made of [A-Za-z0-9_]: "s_" and
// the id with every other character replaced by "_", and "_2", "_3", … on
// a clash. The prefix keeps names clear of each language's keywords (DOT's
// node, Mermaid's end) and of a leading digit.
func nodeNames(p *ir.Program) []string {
	taken := make(map[string]bool, len(p.Steps))
	names := make([]string, len(p.Steps))
	for i := range p.Steps {
		base := "s_" + sanitize(p.Steps[i].ID)
		name := base
		for k := 2; taken[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// sanitize replaces every character of s outside [A-Za-z0-9_] with "_".
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// clean returns s safe to show: control characters (C0, C1, DEL), the line
// and paragraph separators and the bidirectional controls become Go
// escapes (\n, \u202e), and invalid UTF-8 becomes U+FFFD.
func clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeRune(r) {
			q := strconv.QuoteRune(r) // '\n', '\u202e', '\x00'
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune reports whether r must not reach a drawing as it is.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// cut shortens s to maxLine characters, the last one "…".
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxLine {
		return s
	}
	k := 0
	for i := range s {
		if k == maxLine-1 {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// lane returns the tool lane's edges: consecutive tool steps in dispatch
// order, as pairs of step indices.
func lane(p *ir.Program) ([][2]int32, error) {
	s, err := Simulate(p, Options{})
	if err != nil {
		return nil, err
	}
	var edges [][2]int32
	for k := 1; k < len(s.ToolLane); k++ {
		edges = append(edges, [2]int32{s.ToolLane[k-1], s.ToolLane[k]})
	}
	return edges, nil
}
