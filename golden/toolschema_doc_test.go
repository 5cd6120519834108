package golden

import (
	"encoding/json"
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
	schemas := toolschema.Builtin()
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		var s struct {
			Description string   `json:"description"`
			Required    []string `json:"required"`
			Properties  map[string]struct {
				Type        any    `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(schemas[name], &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var fields []string
		for _, f := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[f]
			types := fmt.Sprint(p.Type)
			if list, ok := p.Type.([]any); ok {
				var words []string
				for _, w := range list {
					words = append(words, fmt.Sprint(w))
				}
				types = strings.Join(words, " or ")
			}
			req := "optional"
			if slices.Contains(s.Required, f) {
				req = "required"
			}
			fields = append(fields, fmt.Sprintf("`%s` (%s, %s): %s", f, types, req, p.Description))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, strings.Join(fields, "<br>"), s.Description)
	}
	return b.String()
}

// TestManifestToolTable: docs/manifest.md lists every built-in tool with
// the fields its schema takes.
func TestManifestToolTable(t *testing.T) {
	const begin, end = "<!-- builtin-tools:begin -->\n", "<!-- builtin-tools:end -->"
	testkit.GoldenSection(t, "../docs/manifest.md", begin, end, builtinToolsTable(t), "the built-in tools table")
}
