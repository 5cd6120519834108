package graph

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/planc/planc/ir"
)

// mermaidShape is the opening and closing bracket of each kind's node
// shape: a rounded box for a tool, a parallelogram for a shell command, a
// subroutine box for a capsule. The label goes between them, in quotes.
var mermaidShape = map[ir.Kind][2]string{
	ir.KindTool:    {"(", ")"},
	ir.KindShell:   {"[/", "/]"},
	ir.KindCapsule: {"[[", "]]"},
}

// WriteMermaid writes p as a Mermaid flowchart. Node names are made of
// [A-Za-z0-9_] only (see nodeNames) and every label is a quoted string in
// which the characters Mermaid would read (quotes, #, <, >, &, |, `, %) are
// entity codes. The output is deterministic.
func WriteMermaid(w io.Writer, p *ir.Program) error {
	edges, err := lane(p)
	if err != nil {
		return err
	}
	ns := nodes(p)
	bw := bufio.NewWriter(w)
	bw.WriteString("flowchart TD\n")
	fmt.Fprintf(bw, "    %%%% plan %s, drawn by planc graph: solid edges go from a dependency to\n", mermaidComment(p.ID))
	bw.WriteString("    %% its dependent; dashed grey edges are the tool lane, one tool step at a time\n")
	laneLinks := mermaidGraph(bw, p, ns, edges)
	classes := map[string][]string{}
	for _, n := range ns {
		k := n.kind.String()
		classes[k] = append(classes[k], n.name)
		if n.cond != "" {
			classes["conditional"] = append(classes["conditional"], n.name)
		}
		if n.tolerant {
			classes["tolerant"] = append(classes["tolerant"], n.name)
		}
	}
	for _, c := range []struct{ name, def string }{
		{"tool", "fill:" + styles[ir.KindTool].fill + ",stroke:" + styles[ir.KindTool].line + ",color:#0f172a"},
		{"shell", "fill:" + styles[ir.KindShell].fill + ",stroke:" + styles[ir.KindShell].line + ",color:#0f172a"},
		{"capsule", "fill:" + styles[ir.KindCapsule].fill + ",stroke:" + styles[ir.KindCapsule].line + ",color:#0f172a"},
		{"conditional", "stroke-dasharray:5 5"},
		{"tolerant", "stroke-width:3px"},
	} {
		if len(classes[c.name]) == 0 {
			continue
		}
		fmt.Fprintf(bw, "    classDef %s %s\n", c.name, c.def)
		fmt.Fprintf(bw, "    class %s %s\n", strings.Join(classes[c.name], ","), c.name)
	}
	if len(laneLinks) > 0 {
		fmt.Fprintf(bw, "    linkStyle %s stroke:%s,stroke-dasharray:3 3\n", strings.Join(laneLinks, ","), laneColor)
	}
	return bw.Flush()
}

// mermaidComment quotes s for a Mermaid comment line as commentQuote does,
// with every % written \x25 (the same Go escape): Mermaid reads a
// %%{init: …}%% directive anywhere in the text, comment lines included,
// before it drops comments, so a plan id holding one would set the
// renderer's configuration (its theme, its CSS).
func mermaidComment(s string) string {
	return strings.ReplaceAll(commentQuote(s), "%", `\x25`)
}

// mermaidLabel returns lines as one quoted Mermaid label, the lines joined
// by <br/>.
func mermaidLabel(lines []string) string {
	q := make([]string, len(lines))
	for i, l := range lines {
		q[i] = mermaidEscape(l)
	}
	return `"` + strings.Join(q, "<br/>") + `"`
}

// mermaidEscape replaces the characters that could end or change a quoted
// Mermaid label with entity codes (#quot; and the decimal #NN; forms,
// which Mermaid decodes when it renders).
func mermaidEscape(s string) string {
	var b strings.Builder
	for _, r := range clean(s) {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '#', '<', '>', '&', '|', '`', '%', '\\':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mermaidGraph writes the nodes ns, p's dependency edges and the tool
// lane's edges, for the plan and for the plan as it ran alike; it returns
// the lane links' numbers, which linkStyle takes.
func mermaidGraph(bw *bufio.Writer, p *ir.Program, ns []node, edges [][2]int32) []string {
	for _, n := range ns {
		sh := mermaidShape[n.kind]
		fmt.Fprintf(bw, "    %s%s%s%s\n", n.name, sh[0], mermaidLabel(n.lines), sh[1])
	}
	links := 0
	for i := range p.Steps {
		for _, d := range p.Steps[i].Dependents {
			fmt.Fprintf(bw, "    %s --> %s\n", ns[i].name, ns[d].name)
			links++
		}
	}
	laneLinks := make([]string, 0, len(edges))
	for _, e := range edges {
		fmt.Fprintf(bw, "    %s -.-> %s\n", ns[e[0]].name, ns[e[1]].name)
		laneLinks = append(laneLinks, strconv.Itoa(links))
		links++
	}
	return laneLinks
}
