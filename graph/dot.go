package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/planc/planc/ir"
)

// style is how one kind of step is drawn.
type style struct {
	dotShape   string // Graphviz node shape
	dotStyle   string // Graphviz node style, before "dashed" is added
	fill, line string // fill and border colours
}

// styles holds the look of each kind, by ir.Kind.
var styles = map[ir.Kind]style{
	ir.KindTool:    {dotShape: "box", dotStyle: "rounded,filled", fill: "#dbeafe", line: "#1d4ed8"},
	ir.KindShell:   {dotShape: "parallelogram", dotStyle: "filled", fill: "#dcfce7", line: "#15803d"},
	ir.KindCapsule: {dotShape: "component", dotStyle: "filled", fill: "#fef3c7", line: "#b45309"},
}

// laneColor is the colour of the tool lane's edges.
const laneColor = "#6b7280"

// WriteDOT writes p as a Graphviz digraph, for `dot -Tsvg`. Node names are
// those of the Mermaid drawing; every id and condition appears only inside
// quoted strings, escaped. The output is deterministic.
func WriteDOT(w io.Writer, p *ir.Program) error {
	edges, err := lane(p)
	if err != nil {
		return err
	}
	ns := nodes(p)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "// plan %s, drawn by planc graph: solid edges go from a dependency to its\n", commentQuote(p.ID))
	bw.WriteString("// dependent; dashed grey edges are the tool lane, one tool step at a time\n")
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(p.ID))
	fmt.Fprintf(bw, "  graph [label=%s, labelloc=t, fontname=\"Helvetica\", rankdir=TB];\n", dotQuote("plan "+clean(p.ID)))
	bw.WriteString("  node [fontname=\"Helvetica\", fontsize=11];\n")
	bw.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	if len(ns) > 0 {
		bw.WriteString("\n  // steps\n")
	}
	for _, n := range ns {
		st := styles[n.kind]
		nodeStyle := st.dotStyle
		if n.cond != "" {
			nodeStyle += ",dashed"
		}
		fmt.Fprintf(bw, "  %s [label=%s, tooltip=%s, shape=%s, style=%q, fillcolor=%q, color=%q",
			n.name, dotLines(n.lines), dotLines(n.tooltip), st.dotShape, nodeStyle, st.fill, st.line)
		if n.tolerant {
			bw.WriteString(", penwidth=2.5")
		}
		bw.WriteString("];\n")
	}
	dotEdges(bw, p, ns, edges, "tool lane")
	return bw.Flush()
}

// dotQuote returns s as a DOT double-quoted string. In DOT's escString a
// backslash starts an escape (\n, \l, \N, …), so it is doubled; a quote is
// escaped; a newline becomes \n. Other characters, Unicode included, stand
// for themselves (DOT input is UTF-8).
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range clean(s) {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// dotLines returns lines as one DOT string, each line ended by DOT's
// centred line break \n.
func dotLines(lines []string) string {
	q := make([]string, len(lines))
	for i, l := range lines {
		q[i] = strings.TrimSuffix(strings.TrimPrefix(dotQuote(l), `"`), `"`)
	}
	return `"` + strings.Join(q, `\n`) + `"`
}

// commentQuote quotes s for a comment line as a Go quoted string, which
// never holds a line break.
func commentQuote(s string) string {
	return fmt.Sprintf("%q", s)
}

// dotEdges writes p's dependency edges and the tool lane's edges under the
// comment lane, and closes the graph, for the plan and for the plan as it
// ran alike.
func dotEdges(bw *bufio.Writer, p *ir.Program, ns []node, edges [][2]int32, lane string) {
	first := true
	for i := range p.Steps {
		for _, d := range p.Steps[i].Dependents {
			if first {
				bw.WriteString("\n  // dependencies\n")
				first = false
			}
			fmt.Fprintf(bw, "  %s -> %s;\n", ns[i].name, ns[d].name)
		}
	}
	if len(edges) > 0 {
		fmt.Fprintf(bw, "\n  // %s\n", lane)
	}
	for _, e := range edges {
		fmt.Fprintf(bw, "  %s -> %s [style=dashed, color=%q, arrowhead=vee, constraint=false, tooltip=\"tool lane\"];\n",
			ns[e[0]].name, ns[e[1]].name, laneColor)
	}
	bw.WriteString("}\n")
}
