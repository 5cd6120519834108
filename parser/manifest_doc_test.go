package parser

import (
	"os"
	"regexp"
	"testing"
)

// TestManifestDocExamples: every JSON example of docs/manifest.md is a
// manifest the parser accepts as it stands.
func TestManifestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/manifest.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < 3 {
		t.Fatalf("%d JSON examples in docs/manifest.md", len(blocks))
	}
	for _, b := range blocks {
		if _, ds := ParseManifest(b[1], DefaultLimits()); len(ds) != 0 {
			t.Errorf("%s\n%v", b[1], ds)
		}
	}
}
