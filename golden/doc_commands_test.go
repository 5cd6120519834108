package golden

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docCommands names, for every command line a page shows ("$ …" in a
// console or indented block), the test that runs it exactly as shown and
// compares what it prints with the page. A page that gains a command needs
// a test, named here.
var docCommands = map[string]string{
	"planc check --capsule examples/capsule.json golden/testdata/check/err/five-mistakes.json": "TestReadmeTour",
	"planc dump-ir --capsule examples/capsule.json examples/refresh-fixtures.json":             "TestReadmeTour",
	"planc graph --capsule examples/capsule.json --format mermaid examples/fan-out.json":       "TestReadmeTour",
	"planc run --dry-run --capsule examples/capsule.json examples/fan-out.json":                "TestReadmeTour",
	"planc run examples/hello.json": "TestReadmeTour",
	"planc trace steps":             "TestReadmeTour", // and TestResumeDoc
	"planc run --roost examples/roost --capsule examples/capsule.json examples/capsules.json": "TestReadmeCapsulesExample",
	"planc run --capsule examples/mcp/capsule.json examples/mcp/plan.json":                    "TestReadmeMCPExample",
	"go run ./cmd/planc run --capsule examples/mcp/capsule.json examples/mcp/plan.json":       "TestReadmeMCPExample",
	"planc serve --mcp":                           "TestReadmeServeExample",
	"planc run --capsule capsule.json plan.json":  "TestResumeDoc",
	"touch approved":                              "TestResumeDoc",
	"planc run --resume --capsule capsule.json":   "TestResumeDoc",
	"cat side-effects.log":                        "TestResumeDoc",
	"ls .planc/sessions/*/outputs/plan-1":         "TestResumeDoc",
	"ls .planc/sessions/*/reports":                "TestResumeDoc",
	"planc trace list":                            "TestTraceDocExamples",
	"planc trace logs test --plan 1":              "TestTraceDocExamples",
	"planc tools --capsule examples/capsule.json": "TestDocsShown",
	"planc run --capsule examples/capsule.json --quiet examples/compose.json": "TestDocsShown",
	"planc trace logs summary":           "TestDocsShown",
	"planc trace logs count":             "TestDocsShown",
	"planc trace graph":                  "TestDocsShown",
	"planc trace graph --format mermaid": "TestDocsShown",
	"planc trace html -o run.html":       "TestDocsShown",
	// The built planc stands in for go run, as for docs/mcp.md's line.
	"go run ./cmd/planc run examples/hello.json":    "TestReadmeQuickStart",
	"planc graph plan.json | dot -Tsvg -o plan.svg": "TestDocsGraphDot",
	"planc init":                          "TestDocsInitTrust",
	"planc trust":                         "TestDocsInitTrust",
	"planc trust sub/.planc/capsule.json": "TestDocsInitTrust",
}

// docCommandsNotRun are the command lines a page shows that no test can
// run, and why.
var docCommandsNotRun = map[string]string{
	"go test -race ./...": "the test suite itself, which no test of it can run; .ci/run runs it as shown, once more under load",
	"systemd-run --user --scope -p Delegate=yes planc run --capsule capsule.json plan.json": "needs a systemd user manager, which CI has not; the scope it makes is what NeedScope tests give planc",
}

var commandLineRE = regexp.MustCompile(`^\s*\$ (.+)$`)

// indentedCommandRE is a concrete planc command in an indented block (no
// prompt): a synopsis, with [flags] or a placeholder such as PLAN, and a
// line of output ("planc check: …") are not commands.
var indentedCommandRE = regexp.MustCompile(`^ {4}(planc (?:check|run|graph|init|trust|trace|tools|dump-ir|serve|version)(?: [^\[]*)?)$`)

var placeholderRE = regexp.MustCompile(`\b[A-Z]{1,}\b`)

// shownCommand returns the command line l shows, if any: a "$ " line in a
// fenced or indented block, every line of a sh (bash, shell) block, or a
// concrete planc command in an indented block; fence is the language of
// the fenced block l lies in ("" outside one).
func shownCommand(l string, fenced bool, fence string) (string, bool) {
	if m := commandLineRE.FindStringSubmatch(l); m != nil {
		return strings.TrimSpace(m[1]), true
	}
	switch {
	case fenced && (fence == "sh" || fence == "bash" || fence == "shell"):
		cmd := strings.TrimSpace(l)
		return cmd, cmd != "" && !strings.HasPrefix(cmd, "#")
	case !fenced:
		if m := indentedCommandRE.FindStringSubmatch(l); m != nil && !placeholderRE.MatchString(m[1]) {
			return strings.TrimSpace(m[1]), true
		}
	}
	return "", false
}

// TestDocsCommandsRun: every command line of the README and docs/ is run
// by a test that exists (or is listed as one no test can run), and every
// command listed is still shown somewhere.
func TestDocsCommandsRun(t *testing.T) {
	var out []finding
	tests := map[string]bool{}
	shown := map[string]bool{}
	files := repoFiles(t)
	for _, f := range files {
		if !strings.HasSuffix(f.rel, "_test.go") {
			continue
		}
		for _, l := range f.lines {
			if name, ok := strings.CutPrefix(l, "func Test"); ok {
				name, _, _ = strings.Cut(name, "(")
				tests["Test"+name] = true
			}
		}
	}
	for _, f := range files {
		if !isDoc(f.rel) {
			continue
		}
		fenced, fence := false, ""
		for n, l := range f.lines {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") {
				fenced, fence = !fenced, strings.TrimPrefix(t, "```")
				continue
			}
			cmd, ok := shownCommand(l, fenced, fence)
			if !ok {
				continue
			}
			shown[cmd] = true
			if _, ok := docCommandsNotRun[cmd]; ok {
				continue
			}
			test, ok := docCommands[cmd]
			switch {
			case !ok:
				out = append(out, finding{f.rel, n + 1, fmt.Sprintf("%q is run by no test; write one that runs it as shown and name it in docCommands", cmd)})
			case !tests[test]:
				out = append(out, finding{f.rel, n + 1, fmt.Sprintf("%q is said to be run by %s, which does not exist", cmd, test)})
			}
		}
	}
	for _, list := range []map[string]string{docCommands, docCommandsNotRun} {
		for _, cmd := range slices.Sorted(maps.Keys(list)) {
			if !shown[cmd] {
				out = append(out, finding{"golden/doc_commands_test.go", 0, fmt.Sprintf("%q is no longer shown by any page; drop it from the list", cmd)})
			}
		}
	}
	report(t, "command lines of the documents", out)
}
