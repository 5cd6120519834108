package golden

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/internal/testkit"
)

// builtinToolsTable renders docs/manifest.md's table of the built-in tools
// from their input schemas (host/toolschema), which the tools and the
// tool-input rule use too, so the table cannot drift from either.
func builtinToolsTable(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("| tool | input fields | what it does |\n| --- | --- | --- |\n")
	for _, name := range slices.Sorted(maps.Keys(toolschema.Builtin())) {
		tool, ok := toolschema.Describe(name)
		if !ok {
			t.Fatalf("%s: not described", name)
		}
		var fields []string
		for _, f := range tool.Fields {
			req := "optional"
			if f.Required {
				req = "required"
			}
			fields = append(fields, fmt.Sprintf("`%s` (%s, %s): %s", f.Name, strings.Join(f.Types, " or "), req, f.Description))
		}
		if o := tool.Others; o != nil {
			fields = append(fields, fmt.Sprintf("any other member (%s, optional): %s", strings.Join(o.Types, " or "), o.Description))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, strings.Join(fields, "<br>"), tool.Description)
	}
	return b.String()
}

// TestManifestToolTable: docs/manifest.md lists every built-in tool with
// the fields its schema takes.
func TestManifestToolTable(t *testing.T) {
	const begin, end = "<!-- builtin-tools:begin -->\n", "<!-- builtin-tools:end -->"
	testkit.GoldenSection(t, "../docs/manifest.md", begin, end, builtinToolsTable(t), "the built-in tools table")
}
