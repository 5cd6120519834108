package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListingWrite: text is FormatText's; json is the listing itself,
// indented, on one document ending in a newline.
func TestListingWrite(t *testing.T) {
	l := Listing{Capsule: "c.json", Tools: []ToolInfo{{Name: "notes", Source: "builtin", Description: "keeps notes", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	var text strings.Builder
	if err := l.Write(&text, "text"); err != nil || text.String() != FormatText(l.Capsule, l.Tools) {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	var js strings.Builder
	if err := l.Write(&js, "json"); err != nil || !strings.HasSuffix(js.String(), "}\n") || !strings.Contains(js.String(), "\n  \"capsule\": \"c.json\"") {
		t.Fatalf("json: %v\n%s", err, js.String())
	}
	var back Listing
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil || back.Capsule != "c.json" || len(back.Tools) != 1 || back.Tools[0].Name != "notes" {
		t.Errorf("json does not read back: %v %+v", err, back)
	}
}
