package check_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/parser"
)

// fields are the built-in tools' own fields, which the generator starts
// from half of the time.
var fields = map[string][]string{"compose": {"template", "values"}, "notes": {"body"}, "read-file": {"path"}, "repo-files": {"glob"}, "write-file": {"path", "content"}}

// ownValues are the values of the tools' own fields that the tool takes,
// where "a" would not do.
var ownValues = map[string]string{"template": `"{a}"`, "values": `{"a": "a"}`}

// genInput returns generated JSON text for tool's input: half of the time
// the tool's own fields holding "a", one of them perhaps dropped or given
// another value, perhaps with a field the tool does not take; otherwise
// up to three fields of any tool or none, holding any value; sometimes a
// value that is not an object at all. Values are strings (empty, with a
// NUL byte, a file that exists), null, numbers, booleans, lists and
// objects; no string is shaped like a reference.
func genInput(r *rand.Rand, tool string) string {
	if r.IntN(10) == 0 {
		return genValue(r, 1)
	}
	var parts []string
	if r.IntN(2) == 0 {
		own := fields[tool]
		drop, change := r.IntN(len(own)+2), r.IntN(len(own)*2)
		for i, k := range own {
			switch {
			case i == drop:
			case i == change:
				parts = append(parts, fmt.Sprintf("%q: %s", k, genValue(r, 0)))
			case ownValues[k] != "":
				parts = append(parts, fmt.Sprintf("%q: %s", k, ownValues[k]))
			default:
				parts = append(parts, fmt.Sprintf("%q: %q", k, "a"))
			}
		}
		if r.IntN(4) == 0 {
			parts = append(parts, fmt.Sprintf("%q: %q", "text", "a"))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	keys := []string{"path", "content", "body", "glob", "file", "text"}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, k := range keys[:r.IntN(4)] {
		parts = append(parts, fmt.Sprintf("%q: %s", k, genValue(r, 0)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// genValue returns one generated JSON value; depth bounds its nesting.
func genValue(r *rand.Rand, depth int) string {
	leaves := []string{`"a"`, `"a"`, `"a"`, `""`, `"a\u0000b"`, `null`, `1`, `2.5`, `true`}
	if depth >= 2 || r.IntN(4) > 0 {
		return leaves[r.IntN(len(leaves))]
	}
	if r.IntN(2) == 0 {
		return "[" + genValue(r, depth+1) + "]"
	}
	return `{"x": ` + genValue(r, depth+1) + "}"
}

// TestToolInputMatchesBuiltins is the property the rule and the tools
// share their schemas for: for generated, reference-free inputs, check
// refuses a step (tool-input, or wrong-type for an input that is neither
// an object nor a string) exactly when the built-in tool, called with the
// same input, refuses it. The working directory holds the file "a", so every
// input the schema accepts is one the tool can carry out.
func TestToolInputMatchesBuiltins(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &tools.Builtins{WorkDir: dir, NotesPath: filepath.Join(dir, "notes.md"), Inputs: capenv.Default()}
	caps := check.CapabilitiesOf(capenv.DefaultManifest()).WithSchemas(toolschema.Builtin())
	builtins := check.BuiltinTools()
	r := rand.New(rand.NewPCG(17, 2026))
	refusals, cases := 0, 2000
	for range cases {
		tool := builtins[r.IntN(len(builtins))]
		input := genInput(r, tool)
		src := fmt.Sprintf(`{"id": "p", "steps": [{"id": "s", "tool": %q, "input": %s}]}`, tool, input)
		plan, ds := parser.ParsePlan([]byte(src), parser.DefaultLimits())
		if plan == nil || len(ds) > 0 {
			t.Fatalf("%s: %v", src, ds)
		}
		// The plan has one step: any error is about its input (tool-input,
		// or wrong-type for an input that is neither object nor string).
		var found []string
		for _, d := range check.Check(plan, caps) {
			if d.Severity == ast.Error {
				found = append(found, d.Code+": "+d.Message)
			}
		}
		raw := json.RawMessage(input)
		if input == "null" {
			raw = nil // "input": null is no input (S3)
		}
		_, err := b.Call(context.Background(), tool, raw)
		if (len(found) > 0) != (err != nil) {
			t.Errorf("%s %s: tool-input found %q, the tool returned %v", tool, input, found, err)
		}
		if err != nil {
			refusals++
		}
	}
	// The generator must reach both sides of the property.
	t.Logf("%d of %d inputs refused", refusals, cases)
	if refusals < cases/10 || refusals > cases*9/10 {
		t.Errorf("%d of %d inputs refused: the generator is lopsided", refusals, cases)
	}
}
