package golden

import (
	"os"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestEmbeddingDocExample: the Host shown in docs/embedding.md is the one
// vm/example_test.go runs (its greeter type and methods, up to the
// Example function), so the document shows code that compiles and whose
// output go test checks. -update rewrites the document's block.
func TestEmbeddingDocExample(t *testing.T) {
	const (
		docPath              = "../docs/embedding.md"
		examplePath          = "../vm/example_test.go"
		begin, end           = "<!-- example:begin -->\n```go\n", "```\n<!-- example:end -->"
		fromLine, beforeLine = "// greeter is", "// Example embeds"
	)
	src, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	i, j := strings.Index(code, fromLine), strings.Index(code, beforeLine)
	if i < 0 || j < i {
		t.Fatalf("%s lacks %q … %q", examplePath, fromLine, beforeLine)
	}
	want := strings.TrimSpace(code[i:j]) + "\n"

	testkit.GoldenSection(t, docPath, begin, end, want, examplePath+"'s example")
}
