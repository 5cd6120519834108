package golden

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// The second half of the schema tests: the condition grammar's pattern
// against the condition parser, and the capsule manifest schema against
// parser.ParseManifest.

// condPattern returns the pattern the plan schema gives "if".
func condPattern(t *testing.T) *regexp.Regexp {
	t.Helper()
	raw, err := os.ReadFile(planSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			Step struct {
				Properties struct {
					If struct {
						Pattern string `json:"pattern"`
					} `json:"if"`
				} `json:"properties"`
			} `json:"step"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(doc.Defs.Step.Properties.If.Pattern)
}

// condAccepted reports whether the checker takes text as a condition: it
// parses (S10) and every reference reads output or status (S6).
func condAccepted(text string) bool {
	c, err := parser.ParseCond(text, parser.CondSource{})
	if err != nil {
		return false
	}
	for _, r := range ast.CondRefs(nil, c) {
		if r.Field == ast.RefOther {
			return false
		}
	}
	return true
}

// TestSchemaCondition compares the schema's pattern for "if" with the
// condition parser on conditions built at random from the tokens the
// grammar has and the near misses it refuses.
func TestSchemaCondition(t *testing.T) {
	re := condPattern(t)
	tokens := []string{
		"$a.output", "$a.status", "$b-c_1.output", "$a.foo", "$.output", "$a.", "$a", "$a.output.x", "$a.out-put", "$é.output",
		"'x'", `"y"`, "'a || b'", `"it's"`, "''", "'", `"`,
		"==", "!=", ">", "<", ">=", "<=", "=", "!", "&&", "||", "&", "|", "(", ")",
		"3", "word", "é", " ", "\t", "\n", "\r", "\u00a0", "\f",
	}
	rng := rand.New(rand.NewPCG(10, 1))
	cases := []string{"", " ", "$a.status == 'x'", "$a.status=='x'", "'x'=='y'||$a.output<\"z\"&&$a.status!='ok'"}
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(9) {
			b.WriteString(tokens[rng.IntN(len(tokens))])
			if rng.IntN(3) == 0 {
				b.WriteString(" ")
			}
		}
		cases = append(cases, b.String())
	}
	// Grammatical conditions are rare at random: build some too.
	operands := []string{"$a.output", "$a.status", "'x'", `"y z"`, "$k-9.output"}
	ops := []string{"==", "!=", ">", "<"}
	for range 2000 {
		var b strings.Builder
		for i := range 1 + rng.IntN(4) {
			if i > 0 {
				b.WriteString([]string{"&&", "||", " && ", "\n||\t"}[rng.IntN(4)])
			}
			b.WriteString(operands[rng.IntN(len(operands))] + []string{"", " "}[rng.IntN(2)])
			b.WriteString(ops[rng.IntN(len(ops))] + []string{"", " "}[rng.IntN(2)])
			b.WriteString(operands[rng.IntN(len(operands))])
		}
		cases = append(cases, b.String())
	}
	accepted := 0
	for _, c := range cases {
		want := condAccepted(c)
		if want {
			accepted++
		}
		if got := re.MatchString(c); got != want {
			t.Errorf("if %q: schema pattern says %v, the parser %v", c, got, want)
		}
	}
	if accepted < 1000 {
		t.Errorf("only %d accepted conditions among the cases", accepted)
	}
}

// manifestDrift holds manifests on the edge of each rule, with the
// schema's verdict; gap, when set, says why it differs from the parser's.
var manifestDrift = []struct {
	src   string
	valid bool
	gap   string
}{
	{`{"name": "local/x"}`, true, ""},
	{`{"name": "a.b_c-d/E9", "version": null, "capabilities": null, "tools": null, "hooks": null, "entrypoint": null}`, true, ""},
	{`{"name": "local/x", "version": "10.0.1"}`, true, ""},
	{`{"$comment": "why", "name": "local/x", "capabilities": {"$comment": "c", "plan": {"$comment": "p"}, "shell": {"$comment": "s"}, "spawn": {"$comment": "sp"}, "filesystem": {"$comment": null}}, "tools": {"$comment": "t", "mcp": {"a": {"$comment": "server", "command": ["x"]}}}, "hooks": [{"$comment": "h", "on": "on-shell", "commit_policy": "deny"}], "entrypoint": {"$comment": "e", "plan": "p.json"}}`, true, ""},
	{`{"name": "local/x", "$comment": 1}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"$comment": ["a"]}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"$comment": "a server named so"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"$comment": "x"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"plan": {"submit": false}, "shell": {"allow": ["bash", "go"], "timeout": "1h30m"}, "spawn": {"allow": ["local/w"]}, "filesystem": {"read_only": [".", "/etc"]}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"plan": null, "shell": {"allow": null, "timeout": null}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "+1.5s"}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "300µs"}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "9999999999h"}}}`, true, "an overflowing Go duration is refused by time.ParseDuration only"},
	{`{"name": "local/x", "tools": {"builtin": ["notes", "write-file"], "mcp": {"fs": {"command": ["npx", "-y", "srv"]}, "odd name": {"command": ["x"]}}}}`, true, ""},
	{`{"name": "local/x", "hooks": [{"on": "on-shell", "match": "rm *", "commit_policy": "deny"}, {"on": "on-tool-call", "commit_policy": "allow", "match": null}]}`, true, ""},
	{`{"name": "local/x", "entrypoint": {"plan": "p.json"}}`, true, ""},
	{`{"name": "local/x", "entrypoint": {"command": ["bin"], "plan": null}}`, true, ""},
	{`[]`, false, ""},
	{`{}`, false, ""},
	{`{"name": null}`, false, ""},
	{`{"name": "worker"}`, false, ""},
	{`{"name": "local/.x"}`, false, ""},
	{`{"name": "-a/x"}`, false, ""},
	{`{"name": "a/b/c"}`, false, ""},
	{`{"name": 5}`, false, ""},
	{`{"name": "local/x", "nmae": 1}`, false, ""},
	{`{"name": "local/x", "shell": {}}`, false, ""},
	{`{"name": "local/x", "version": "v1.2.3"}`, false, ""},
	{`{"name": "local/x", "version": "1.02.3"}`, false, ""},
	{`{"name": "local/x", "version": "1.2"}`, false, ""},
	{`{"name": "local/x", "capabilities": []}`, false, ""},
	{`{"name": "local/x", "capabilities": {"timeout": "1s"}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"plan": {"submit": "true"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"allow": "bash"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"allow": [""]}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"allow": ["go test"]}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"allow": ["go\u00a0"]}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"allow": [null]}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"alow": []}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "600"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "0s"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "-5m"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": "1h30"}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"timeout": 600}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"spawn": {"allow": ["worker"]}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"filesystem": {"read_only": [""]}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"filesystem": {"read_only": ["a\u0000b"]}}}`, false, ""},
	{`{"name": "local/x", "tools": {"builtin": ["submit-plan"]}}`, false, ""},
	{`{"name": "local/x", "tools": {"builtin": ["note"]}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"": {"command": ["x"]}}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {}}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": null}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": []}}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": ["npx", ""]}}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": "npx srv"}}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": ["x"], "env": {}}}}}`, true, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": ["x"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "A": null}}}}}`, true, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": ["x"], "env": {"A": 1}}}}}`, false, ""},
	{`{"name": "local/x", "tools": {"mcp": {"fs": {"command": ["x"], "evn": {}}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"MY_API_KEY": "${MY_API_KEY}", "_x9": "a$b$$c${D}$", "E": "", "F": null}}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": "$${B", "C": "$", "D": "$$$"}}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": null}}}`, true, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": []}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"MY-KEY": "1"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"9A": "1"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"": "1"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": true}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": "${B"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": "x${B:-c}"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": "${}"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": "$${B}${"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"shell": {"env": {"A": "a\u0000b"}}}}`, false, ""},
	{`{"name": "local/x", "capabilities": {"env": {}}}`, false, ""},
	{`{"name": "local/x", "hooks": {}}`, false, ""},
	{`{"name": "local/x", "hooks": [null]}`, false, ""},
	{`{"name": "local/x", "hooks": [{"commit_policy": "deny"}]}`, false, ""},
	{`{"name": "local/x", "hooks": [{"on": "shell", "commit_policy": "deny"}]}`, false, ""},
	{`{"name": "local/x", "hooks": [{"on": "on-shell"}]}`, false, ""},
	{`{"name": "local/x", "hooks": [{"on": "on-shell", "commit_policy": "block"}]}`, false, ""},
	{`{"name": "local/x", "hooks": [{"on": "on-shell", "commit_policy": "deny", "match": ""}]}`, false, ""},
	{`{"name": "local/x", "entrypoint": {}}`, false, ""},
	{`{"name": "local/x", "entrypoint": {"plan": "p.json", "command": ["x"]}}`, false, ""},
	{`{"name": "local/x", "entrypoint": {"plan": ""}}`, false, ""},
	{`{"name": "local/x", "entrypoint": {"command": []}}`, false, ""},
	{`{"name": "local/x", "entrypoint": {"run": "x"}}`, false, ""},
}

// TestCapsuleSchemaDrift: the manifest schema accepts exactly what
// parser.ParseManifest accepts, case by case.
func TestCapsuleSchemaDrift(t *testing.T) {
	s := compileSchema(t, capsuleSchemaPath)
	for _, tc := range manifestDrift {
		_, ds := parser.ParseManifest([]byte(tc.src), parser.DefaultLimits())
		refused := ast.HasErrors(ds)
		verr, ok := validate(t, s, []byte(tc.src))
		if !ok {
			t.Errorf("%s: not JSON", tc.src)
			continue
		}
		valid := verr == nil
		if valid != tc.valid {
			t.Errorf("%s: schema says valid=%v, the case says %v (parser: %v)\n%v", tc.src, valid, tc.valid, ds, verr)
		}
		if tc.gap == "" && refused == valid {
			t.Errorf("%s: the parser refused=%v (%v), the schema valid=%v", tc.src, refused, ds, valid)
		}
		if tc.gap != "" && (!refused || !valid) {
			t.Errorf("%s: listed as a gap (%s), but parser refused=%v, schema valid=%v", tc.src, tc.gap, refused, valid)
		}
	}
}
