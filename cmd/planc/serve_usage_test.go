package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestServeUsage: the usage errors, in-process.
func TestServeUsage(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "bad.json", `{"name": 3}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "give --mcp"},
		{[]string{"serve", "--mcp", "plan.json"}, `unexpected argument "plan.json"`},
		{[]string{"serve", "--mcp", "--capsule", "-"}, "standard input is the MCP channel"},
		{[]string{"serve", "--mcp", "--capsule", filepath.Join(dir, "bad.json")}, "bad.json:1:"},
		{[]string{"serve", "--mcp", "--capsule", filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{"serve", "--mcp", "--max-parallel", "-1"}, "--max-parallel must be 0 (no cap) or more"},
		{[]string{"serve", "--mcp", "--shell-timeout", "-5s"}, "--shell-timeout must be a positive duration"},
	} {
		var so, se bytes.Buffer
		if code := Main(c.args, strings.NewReader(""), &so, &se); code != exitUsage || so.Len() != 0 || !strings.Contains(se.String(), c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, so.String(), se.String(), c.want)
		}
	}
	// Standard input at its end: the client is gone, planc ends at once.
	var so, se bytes.Buffer
	if code := Main([]string{"serve", "--mcp"}, strings.NewReader(""), &so, &se); code != exitOK || so.Len() != 0 {
		t.Errorf("serve with no client: exit %d, stdout %q, stderr %q", code, so.String(), se.String())
	}
}
