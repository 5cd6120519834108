package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

// smallLimits stands in for semantics S5's limits in files named limits-*,
// so the limits have golden cases without 16 MiB files.
var smallLimits = parser.Limits{MaxBytes: 512, MaxDepth: 8, MaxSteps: 3}

// checkFile parses and checks one plan with the golden capsule and returns
// its diagnostics in the one-line text form, sorted.
func checkFile(t *testing.T, path string, caps *check.Capabilities) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lim := parser.DefaultLimits()
	if strings.HasPrefix(filepath.Base(path), "limits-") {
		lim = smallLimits
	}
	_, diags := check.LoadLimits(src, caps, lim)
	lines := make([]string, 0, len(diags))
	for _, d := range diags {
		lines = append(lines, d.OneLine(filepath.Base(path)))
	}
	return lines
}

func goldenCaps(t *testing.T) *check.Capabilities {
	t.Helper()
	src, err := os.ReadFile("testdata/check/capsule.json")
	if err != nil {
		t.Fatal(err)
	}
	m, diags := parser.ParseManifest(src, parser.DefaultLimits())
	if len(diags) > 0 {
		t.Fatalf("golden capsule: %v", diags)
	}
	caps := check.CapabilitiesOf(m).WithSchemas(toolschema.Builtin())
	caps.Manifest = "capsule.json" // the fixes name it as the plans are named: by base name
	// Every allowed binary is found but missing-bin, whatever this
	// machine has installed (binary-not-found).
	caps.Found = func(bin string) bool { return bin != "missing-bin" }
	return caps
}

// checkSuites are the golden check cases: the directories that hold ok/
// and err/ plans, each with the capabilities it is checked with.
func checkSuites(t *testing.T) []struct {
	dir  string
	caps *check.Capabilities
} {
	return []struct {
		dir  string
		caps *check.Capabilities
	}{{"testdata/check", goldenCaps(t)}, {mcpDir, mcpCaps(t)}}
}

// TestCheckOK: every plan under testdata/check/ok is accepted with no
// diagnostic at all, warnings included (docs/plans.md's examples among them,
// corrected where S9 says they are wrong); so is every plan under
// testdata/mcp/ok, where references stand in MCP tools' fields.
func TestCheckOK(t *testing.T) {
	for _, suite := range checkSuites(t) {
		files, _ := filepath.Glob(filepath.Join(suite.dir, "ok", "*.json"))
		if len(files) == 0 {
			t.Fatalf("no ok plans in %s", suite.dir)
		}
		for _, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				if got := checkFile(t, f, suite.caps); len(got) != 0 {
					t.Errorf("want no diagnostics, got:\n%s", strings.Join(got, "\n"))
				}
			})
		}
	}
}

// TestCheckErr: every plan under testdata/check/err and testdata/mcp/err
// produces exactly the diagnostics in the .out file beside it (go test
// ./golden -update rewrites them).
func TestCheckErr(t *testing.T) {
	for _, suite := range checkSuites(t) {
		files, _ := filepath.Glob(filepath.Join(suite.dir, "err", "*.json"))
		for _, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				got := strings.Join(checkFile(t, f, suite.caps), "\n") + "\n"
				out := strings.TrimSuffix(f, ".json") + ".out"
				testkit.GoldenFile(t, out, got, "diagnostics")
				if strings.TrimSpace(got) == "" {
					t.Errorf("an err plan must produce at least one diagnostic")
				}
			})
		}
	}
}

// TestEveryCodeHasAnErrCase: each rule's code, and each of the parser's
// document codes, appears in at least one expected .out file.
func TestEveryCodeHasAnErrCase(t *testing.T) {
	outs, _ := filepath.Glob("testdata/check/err/*.out")
	var all strings.Builder
	for _, o := range outs {
		b, _ := os.ReadFile(o)
		all.Write(b)
	}
	codes := []string{parser.CodeJSONSyntax, parser.CodeInvalidUTF8, parser.CodeTrailingData, parser.CodeDuplicateKey,
		parser.CodeTooLarge, parser.CodeTooDeep, parser.CodeTooManySteps, parser.CodeNotAnObject}
	for _, r := range check.Rules() {
		codes = append(codes, r.Code)
	}
	for _, c := range codes {
		if !strings.Contains(all.String(), "["+c+"]") {
			t.Errorf("no err case produces [%s]", c)
		}
	}
}
