package graph_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/graph"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
)

// plans returns the test plans of testdata, lowered, by base name.
func plans(t *testing.T) map[string]*ir.Program {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no test plans")
	}
	out := map[string]*ir.Program{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = lowerSrc(t, string(src))
	}
	return out
}

func draw(t *testing.T, p *ir.Program, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	if format == "dot" {
		err = graph.WriteDOT(&b, p)
	} else {
		err = graph.WriteMermaid(&b, p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden pins both drawings of every test plan (go test ./graph
// -update rewrites them).
func TestGolden(t *testing.T) {
	for name, p := range plans(t) {
		for _, format := range []string{"dot", "mmd"} {
			t.Run(name+"."+format, func(t *testing.T) {
				got := draw(t, p, format)
				testkit.GoldenFile(t, filepath.Join("testdata", name+"."+format), string(got), "drawing")
			})
		}
	}
}

// weirdLabels is what each node of testdata/weird.json must show, line by
// line, once the drawing's escapes are undone: ids with quotes, spaces,
// backslashes and Unicode kept, a line break and a bidi override shown as
// Go escapes, a long condition cut.
var weirdLabels = map[string][]string{
	"s_a__quoted__id": {`a "quoted" id`, "tool notes"},
	"s_a_quoted_id":   {"a_quoted_id", "shell echo \"hi\" \\ there | grep <x> & y # z % `w`", "on_error continue", "retries 2"},
	"s_end":           {"end", "capsule worker", "on_error skip"},
	"s__n_c_d______":  {"ünïcødé 日本 🎉", "tool notes", "if $end.status == 'failed' || $a_quoted_id.outp…"},
	"s_new_line_":     {`new\nline\u202e`, "tool notes"},
	"s_node":          {"node", "tool notes"},
	"s_x_":            {`x\`, "tool notes"},
}

// edgeCounts returns the dependency edges and the tool lane edges p must
// have.
func edgeCounts(t *testing.T, p *ir.Program) (deps, lane int) {
	for i := range p.Steps {
		deps += len(p.Steps[i].Deps)
	}
	s, err := graph.Simulate(p, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return deps, max(0, len(s.ToolLane)-1)
}

// TestDOTGraphviz has Graphviz read every drawing: dot -Tsvg must accept
// it, and dot -Tjson must show the labels as written and the edges.
func TestDOTGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot is not installed (apt-get install graphviz)")
	}
	for name, p := range plans(t) {
		t.Run(name, func(t *testing.T) {
			src := draw(t, p, "dot")
			for _, format := range []string{"-Tsvg", "-Tjson"} {
				cmd := exec.Command(dot, format)
				cmd.Stdin = bytes.NewReader(src)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil || stderr.Len() > 0 {
					t.Fatalf("dot %s: %v\n%s\ninput:\n%s", format, err, stderr.String(), src)
				}
				if format == "-Tjson" {
					checkDOTJSON(t, name, p, out)
				}
			}
		})
	}
}

func checkDOTJSON(t *testing.T, name string, p *ir.Program, out []byte) {
	var g struct {
		Objects []struct {
			Name  string `json:"name"`
			LDraw []struct {
				Op   string `json:"op"`
				Text string `json:"text"`
			} `json:"_ldraw_"`
		} `json:"objects"`
		Edges []struct {
			Style string `json:"style"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Objects) != len(p.Steps) {
		t.Errorf("dot sees %d nodes, the plan has %d steps", len(g.Objects), len(p.Steps))
	}
	for i, o := range g.Objects {
		var lines []string
		for _, op := range o.LDraw {
			if op.Op == "T" {
				lines = append(lines, op.Text)
			}
		}
		if name == "weird" {
			if d := cmp.Diff(weirdLabels[o.Name], lines); d != "" {
				t.Errorf("node %s shows (-want +got):\n%s", o.Name, d)
			}
		} else if i < len(p.Steps) && (len(lines) == 0 || lines[0] != p.Steps[i].ID) {
			t.Errorf("node %s shows %q, want the id %q first", o.Name, lines, p.Steps[i].ID)
		}
	}
	deps, lane := edgeCounts(t, p)
	gotDeps, gotLane := 0, 0
	for _, e := range g.Edges {
		if e.Style == "dashed" {
			gotLane++
		} else {
			gotDeps++
		}
	}
	if gotDeps != deps || gotLane != lane {
		t.Errorf("dot sees %d dependency and %d lane edges, want %d and %d", gotDeps, gotLane, deps, lane)
	}
}

// The statements a drawing of WriteMermaid may hold.
var (
	mmComment  = regexp.MustCompile(`^    %% .*$`)
	mmNode     = regexp.MustCompile(`^    (s_[A-Za-z0-9_]*)(\(|\[/|\[\[)"([^"]*)"(\)|/\]|\]\])$`)
	mmEdge     = regexp.MustCompile(`^    (s_[A-Za-z0-9_]*) (-->|-\.->) (s_[A-Za-z0-9_]*)$`)
	mmClassDef = regexp.MustCompile(`^    classDef (tool|shell|capsule|conditional|tolerant) [a-z-]+:[^ ,]+( [^ ,]+)?(,[a-z-]+:[^ ,]+)*$`)
	mmClass    = regexp.MustCompile(`^    class (s_[A-Za-z0-9_]*(,s_[A-Za-z0-9_]*)*) (tool|shell|capsule|conditional|tolerant)$`)
	mmLink     = regexp.MustCompile(`^    linkStyle ([0-9]+(,[0-9]+)*) stroke:#[0-9a-f]{6},stroke-dasharray:3 3$`)
	mmEntity   = regexp.MustCompile(`#(quot|[0-9]+);`)
	// mmLabelChar is what a label may hold besides entities and <br/>.
	mmBadLabel = regexp.MustCompile("[\"#<>&|`%\\\\\n]")
)

// TestMermaidStructure reads every Mermaid drawing statement by
// statement: node names made of [A-Za-z0-9_], labels quoted with nothing
// in them that Mermaid would read, shapes by kind, edges between declared
// nodes, the tool lane's links styled.
func TestMermaidStructure(t *testing.T) {
	shapes := map[string]ir.Kind{"(": ir.KindTool, "[/": ir.KindShell, "[[": ir.KindCapsule}
	closing := map[string]string{"(": ")", "[/": "/]", "[[": "]]"}
	for name, p := range plans(t) {
		t.Run(name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(string(draw(t, p, "mmd")), "\n"), "\n")
			if lines[0] != "flowchart TD" {
				t.Fatalf("first line %q, want flowchart TD", lines[0])
			}
			declared := map[string]bool{}
			var nodeOrder []string
			var edges []string
			var laneLinks []string
			for _, l := range lines[1:] {
				switch m := mmNode.FindStringSubmatch(l); {
				case mmComment.MatchString(l), mmClassDef.MatchString(l), mmClass.MatchString(l):
				case m != nil:
					k := len(nodeOrder)
					if declared[m[1]] {
						t.Errorf("node %s declared twice", m[1])
					}
					declared[m[1]] = true
					nodeOrder = append(nodeOrder, m[1])
					if closing[m[2]] != m[4] {
						t.Errorf("node %s opens with %s and closes with %s", m[1], m[2], m[4])
					}
					if k < len(p.Steps) && shapes[m[2]] != p.Steps[k].Kind {
						t.Errorf("node %s has the shape of %v, the step is %v", m[1], shapes[m[2]], p.Steps[k].Kind)
					}
					label := strings.ReplaceAll(mmEntity.ReplaceAllString(m[3], ""), "<br/>", "")
					if bad := mmBadLabel.FindString(label); bad != "" {
						t.Errorf("node %s's label holds %q outside an entity: %s", m[1], bad, m[3])
					}
					got := strings.Split(decodeMermaid(m[3]), "<br/>")
					if name == "weird" {
						if d := cmp.Diff(weirdLabels[m[1]], got); d != "" {
							t.Errorf("node %s shows (-want +got):\n%s", m[1], d)
						}
					} else if got[0] != p.Steps[k].ID {
						t.Errorf("node %s shows %q first, want the id %q", m[1], got[0], p.Steps[k].ID)
					}
				case mmEdge.MatchString(l):
					e := mmEdge.FindStringSubmatch(l)
					if !declared[e[1]] || !declared[e[3]] {
						t.Errorf("edge %q names an undeclared node", l)
					}
					if e[2] == "-.->" {
						laneLinks = append(laneLinks, strconv.Itoa(len(edges)))
					}
					edges = append(edges, l)
				case mmLink.MatchString(l):
					if got := mmLink.FindStringSubmatch(l)[1]; got != strings.Join(laneLinks, ",") {
						t.Errorf("linkStyle styles links %s, the lane's are %v", got, laneLinks)
					}
				default:
					t.Errorf("unexpected statement %q", l)
				}
			}
			if len(nodeOrder) != len(p.Steps) {
				t.Errorf("%d nodes for %d steps", len(nodeOrder), len(p.Steps))
			}
			deps, lane := edgeCounts(t, p)
			if len(edges) != deps+lane || len(laneLinks) != lane {
				t.Errorf("%d edges of which %d in the lane, want %d and %d", len(edges), len(laneLinks), deps+lane, lane)
			}
		})
	}
}

// decodeMermaid undoes the entity codes of a label, keeping <br/>.
func decodeMermaid(s string) string {
	return mmEntity.ReplaceAllStringFunc(s, func(e string) string {
		if e == "#quot;" {
			return `"`
		}
		n, _ := strconv.Atoi(e[1 : len(e)-1])
		return string(rune(n))
	})
}

// TestNodeNames: ids that sanitise alike still get distinct names, all of
// [A-Za-z0-9_], clear of Mermaid's "end".
func TestNodeNames(t *testing.T) {
	p := lower(t,
		`{"id": "a-b", "tool": "notes"}`,
		`{"id": "a_b", "tool": "notes"}`,
		`{"id": "a b", "tool": "notes"}`,
		`{"id": "a_b_2", "tool": "notes"}`,
		`{"id": "end", "tool": "notes"}`,
		`{"id": "日本", "tool": "notes"}`,
	)
	out := string(draw(t, p, "mmd"))
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if m := mmNode.FindStringSubmatch(l); m != nil {
			names = append(names, m[1])
		}
	}
	want := []string{"s_a_b", "s_a_b_2", "s_a_b_3", "s_a_b_2_2", "s_end", "s___"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("node names (-want +got):\n%s", d)
	}
}

// TestMermaidDirectiveInPlanID: Mermaid reads a %%{init: …}%% directive
// anywhere in the text, its comment lines included, before it drops the
// comments, so a plan id holding one must not reach the comment line that
// names the plan with its % signs: both drawings of a plan (as planned and
// as it ran) write them \x25, still a Go quoted string of the id.
func TestMermaidDirectiveInPlanID(t *testing.T) {
	id := `%%{init: {'theme':'dark','themeCSS':'.node{background:url(http://x.invalid/)}'}}%% 100%`
	src, err := json.Marshal(map[string]any{"id": id, "steps": []map[string]string{{"id": "a", "tool": "notes"}}})
	if err != nil {
		t.Fatal(err)
	}
	p := lowerSrc(t, string(src))
	var run bytes.Buffer
	if err := graph.WriteRunMermaid(&run, p, &graph.Run{Steps: []graph.StepRun{{Status: "success"}}}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"plan": string(draw(t, p, "mmd")), "run": run.String()} {
		for _, l := range strings.Split(out, "\n") {
			if body, ok := strings.CutPrefix(l, "    %% "); ok && strings.Contains(body, "%") {
				t.Errorf("%s drawing: comment line holds a %%, which Mermaid may read as a directive: %s", name, l)
			}
			if q, ok := strings.CutPrefix(l, "    %% plan "); ok {
				q = q[:strings.LastIndex(q, `"`)+1]
				if got, err := strconv.Unquote(q); err != nil || got != id {
					t.Errorf("%s drawing: comment names the plan %q (%v), want %q", name, got, err, id)
				}
			}
		}
	}
}
