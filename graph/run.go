package graph

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/planc/planc/ir"
)

// StepRun is what a run did with one step, as a trace tells it: the
// drawing of a run (WriteRunDOT, WriteRunMermaid) colours and labels each
// step with it.
type StepRun struct {
	// Status is the step's last status: success, failed or skipped; ""
	// when the run never settled it (not run).
	Status string
	// Duration is the settled attempts' time together, as text (say
	// "1.2s"); "" for none.
	Duration string
	// Attempts counts the step's dispatches.
	Attempts int
	// Reused is set when a redrive reused the step's recorded success.
	Reused bool
}

// Run is what a run did with a program's steps, for the drawing of the
// plan as it ran.
type Run struct {
	// Steps holds one entry per step index of the program; a missing entry
	// (a shorter slice) is a step the run never reached.
	Steps []StepRun
	// ToolLane is the tool steps' dispatches in the order the run made
	// them, as step indices.
	ToolLane []int32
}

// runStyle is how a run's status is drawn.
type runStyle struct{ fill, line string }

// runStyles holds the colour of each status; "" is a step the run did not
// reach.
var runStyles = map[string]runStyle{
	"success": {fill: "#bbf7d0", line: "#15803d"},
	"failed":  {fill: "#fecaca", line: "#b91c1c"},
	"skipped": {fill: "#e5e7eb", line: "#6b7280"},
	"":        {fill: "#ffffff", line: "#9ca3af"},
}

// StatusColor returns the fill and border colours a run's status is drawn
// with (success green, failed red, skipped grey, anything else — not run —
// white with a grey border), the same in every drawing of a run.
func StatusColor(status string) (fill, line string) {
	st, ok := runStyles[status]
	if !ok {
		st = runStyles[""]
	}
	return st.fill, st.line
}

// runNodes returns the nodes of p labelled with what r says of each step.
func runNodes(p *ir.Program, r *Run) []node {
	ns := nodes(p)
	for i := range ns {
		var sr StepRun
		if i < len(r.Steps) {
			sr = r.Steps[i]
		}
		line := runStatus(sr)
		if sr.Duration != "" {
			line += " in " + sr.Duration
		}
		extra := []string{line}
		if sr.Attempts > 1 {
			extra = append(extra, strconv.Itoa(sr.Attempts)+" attempts")
		}
		if sr.Reused {
			extra = append(extra, "reused (redrive)")
		}
		ns[i].lines = append(ns[i].lines, extra...)
		ns[i].tooltip = append(ns[i].tooltip, extra...)
	}
	return ns
}

// runStatus is the status a step is labelled with.
func runStatus(sr StepRun) string {
	if sr.Status == "" {
		return "not run"
	}
	return clean(sr.Status)
}

// runLane returns the tool lane's edges as the run took it: consecutive
// dispatches of different tool steps, each pair once, in order.
func runLane(p *ir.Program, r *Run) [][2]int32 {
	var edges [][2]int32
	seen := map[[2]int32]bool{}
	for k := 1; k < len(r.ToolLane); k++ {
		e := [2]int32{r.ToolLane[k-1], r.ToolLane[k]}
		if e[0] == e[1] || seen[e] || e[0] < 0 || e[1] < 0 || int(e[0]) >= len(p.Steps) || int(e[1]) >= len(p.Steps) {
			continue
		}
		seen[e] = true
		edges = append(edges, e)
	}
	return edges
}

// WriteRunDOT writes p as it ran (r) as a Graphviz digraph: the nodes and
// edges of WriteDOT, each step filled by its status (StatusColor) and
// labelled with its status, time and attempts, a reused step with a double
// border, and the tool lane as the run dispatched it.
func WriteRunDOT(w io.Writer, p *ir.Program, r *Run) error {
	ns := runNodes(p, r)
	edges := runLane(p, r)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "// plan %s as it ran, drawn by planc trace graph: fill is the status (green\n", commentQuote(p.ID))
	bw.WriteString("// success, red failed, grey skipped, white not run); solid edges go from a\n")
	bw.WriteString("// dependency to its dependent; dashed grey edges are the tool lane as it ran\n")
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(p.ID))
	fmt.Fprintf(bw, "  graph [label=%s, labelloc=t, fontname=\"Helvetica\", rankdir=TB];\n", dotQuote("plan "+clean(p.ID)+" as it ran"))
	bw.WriteString("  node [fontname=\"Helvetica\", fontsize=11];\n")
	bw.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	if len(ns) > 0 {
		bw.WriteString("\n  // steps\n")
	}
	for i, n := range ns {
		var sr StepRun
		if i < len(r.Steps) {
			sr = r.Steps[i]
		}
		fill, line := StatusColor(sr.Status)
		nodeStyle := styles[n.kind].dotStyle
		if !strings.Contains(nodeStyle, "filled") {
			nodeStyle += ",filled"
		}
		if sr.Status == "" {
			nodeStyle += ",dashed"
		}
		fmt.Fprintf(bw, "  %s [label=%s, tooltip=%s, shape=%s, style=%q, fillcolor=%q, color=%q",
			n.name, dotLines(n.lines), dotLines(n.tooltip), styles[n.kind].dotShape, nodeStyle, fill, line)
		if sr.Reused {
			bw.WriteString(", peripheries=2")
		}
		if n.tolerant {
			bw.WriteString(", penwidth=2.5")
		}
		bw.WriteString("];\n")
	}
	dotEdges(bw, p, ns, edges, "tool lane, as it ran")
	return bw.Flush()
}

// WriteRunMermaid writes p as it ran (r) as a Mermaid flowchart: the nodes
// and edges of WriteMermaid, each step classed and coloured by its status
// (success, failed, skipped, notrun), a reused step also in class reused
// (a double-weight dashed border), and the tool lane as the run dispatched
// it.
func WriteRunMermaid(w io.Writer, p *ir.Program, r *Run) error {
	ns := runNodes(p, r)
	edges := runLane(p, r)
	bw := bufio.NewWriter(w)
	bw.WriteString("flowchart TD\n")
	fmt.Fprintf(bw, "    %%%% plan %s as it ran, drawn by planc trace graph: fill is the status;\n", mermaidComment(p.ID))
	bw.WriteString("    %% solid edges go from a dependency to its dependent; dashed grey edges are the tool lane as it ran\n")
	laneLinks := mermaidGraph(bw, p, ns, edges)
	classes := map[string][]string{}
	for i, n := range ns {
		var sr StepRun
		if i < len(r.Steps) {
			sr = r.Steps[i]
		}
		c := "notrun"
		if _, ok := runStyles[sr.Status]; ok && sr.Status != "" {
			c = sr.Status
		}
		classes[c] = append(classes[c], n.name)
		if sr.Reused {
			classes["reused"] = append(classes["reused"], n.name)
		}
	}
	for _, c := range []struct{ name, status string }{
		{"success", "success"}, {"failed", "failed"}, {"skipped", "skipped"}, {"notrun", ""}, {"reused", ""},
	} {
		if len(classes[c.name]) == 0 {
			continue
		}
		def := "stroke-width:3px,stroke-dasharray:6 3"
		if c.name != "reused" {
			fill, line := StatusColor(c.status)
			def = "fill:" + fill + ",stroke:" + line + ",color:#0f172a"
		}
		fmt.Fprintf(bw, "    classDef %s %s\n", c.name, def)
		fmt.Fprintf(bw, "    class %s %s\n", strings.Join(classes[c.name], ","), c.name)
	}
	if len(laneLinks) > 0 {
		fmt.Fprintf(bw, "    linkStyle %s stroke:%s,stroke-dasharray:3 3\n", strings.Join(laneLinks, ","), laneColor)
	}
	return bw.Flush()
}
