package cliflag

import (
	"errors"
	"flag"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		args   []string
		pos    []string
		werror bool
		format string
	}{
		{args: []string{"a.json"}, pos: []string{"a.json"}, format: "text"},
		{args: []string{"--werror", "a.json", "b.json"}, pos: []string{"a.json", "b.json"}, werror: true, format: "text"},
		{args: []string{"a.json", "--werror", "b.json", "--format", "json"}, pos: []string{"a.json", "b.json"}, werror: true, format: "json"},
		{args: []string{"-", "--format=sarif"}, pos: []string{"-"}, format: "sarif"},
		{args: []string{"a.json", "--", "--werror", "-"}, pos: []string{"a.json", "--werror", "-"}, format: "text"},
		{args: []string{"--", "-x.json"}, pos: []string{"-x.json"}, format: "text"},
	}
	for _, tt := range tests {
		fs := NewSet("planc check")
		werror := fs.Bool("werror", false, "")
		format := fs.String("format", "text", "")
		pos, err := Parse(fs, tt.args)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.pos, pos); diff != "" {
			t.Errorf("Parse(%q) positional (-want +got):\n%s", tt.args, diff)
		}
		if *werror != tt.werror || *format != tt.format {
			t.Errorf("Parse(%q): werror %v format %q, want %v %q", tt.args, *werror, *format, tt.werror, tt.format)
		}
	}
}

func TestParseHelp(t *testing.T) {
	if _, err := Parse(NewSet("x"), []string{"a", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
}

func TestExplain(t *testing.T) {
	newSet := func() *flag.FlagSet {
		fs := NewSet("x")
		fs.Var(NewChoice("text", "text", "json", "sarif"), "format", "")
		fs.String("capsule", "", "")
		fs.Bool("quiet", false, "")
		fs.Duration("shell-timeout", 0, "")
		fs.Int("max-parallel", 0, "")
		return fs
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, `invalid value "xml" for --format: want text, json or sarif`},
		{[]string{"-format=xml"}, `invalid value "xml" for -format: want text, json or sarif`},
		{[]string{"--format=jsno"}, `invalid value "jsno" for --format: want text, json or sarif; did you mean "json"?`},
		{[]string{"--formt", "json"}, `unknown flag --formt; did you mean --format?`},
		{[]string{"-formt=json"}, `unknown flag -formt; did you mean --format?`},
		{[]string{"--short"}, `unknown flag --short`},
		{[]string{"p.json", "--capsule"}, `--capsule needs a value`},
		{[]string{"p.json", "-format"}, `-format needs a value: text, json or sarif`},
		{[]string{"---werror"}, `"---werror" is not a flag; flags are --NAME or --NAME=VALUE (after --, arguments are not flags)`},
		{[]string{"--shell-timeout", "5"}, `--shell-timeout "5" has no unit; write it with one, as in --shell-timeout 5s`},
		{[]string{"-shell-timeout=1.5"}, `-shell-timeout "1.5" has no unit; write it with one, as in -shell-timeout 1.5s`},
		{[]string{"--shell-timeout", "soon"}, `--shell-timeout "soon" is not a duration; write one such as 90s, 2m or 1h30m`},
		{[]string{"--max-parallel", "two"}, `--max-parallel "two" is not a whole number`},
		{[]string{"--quiet=maybe"}, `--quiet takes no value, but has "maybe"; give --quiet alone`},
	}
	for _, tt := range tests {
		fs := newSet()
		_, err := Parse(fs, tt.args)
		if err == nil {
			t.Errorf("Parse(%q): no error", tt.args)
			continue
		}
		if got := Explain(fs, err); got != tt.want {
			t.Errorf("Explain(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestChoice(t *testing.T) {
	c := NewChoice("dot", "dot", "mermaid")
	if err := c.Set("mermaid"); err != nil || c.String() != "mermaid" {
		t.Errorf("Set(mermaid): %v, value %q", err, c)
	}
	if err := c.Set("svg"); err == nil || err.Error() != "want dot or mermaid" {
		t.Errorf("Set(svg) = %v", err)
	}
	if c.Value != "mermaid" {
		t.Errorf("a refused Set changed the value to %q", c.Value)
	}
}

func TestOrList(t *testing.T) {
	for _, tt := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := OrList(tt.words); got != tt.want {
			t.Errorf("OrList(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}

func TestIsSet(t *testing.T) {
	fs := NewSet("x")
	fs.Int("plan", 0, "")
	fs.Duration("d", time.Second, "")
	if _, err := Parse(fs, []string{"--plan=0"}); err != nil {
		t.Fatal(err)
	}
	if !IsSet(fs, "plan") || IsSet(fs, "d") {
		t.Errorf("IsSet: plan %v d %v, want true false", IsSet(fs, "plan"), IsSet(fs, "d"))
	}
}

func TestUnknown(t *testing.T) {
	views := []string{"steps", "show", "logs"}
	if got := Unknown("view", "stpes", views); got != `unknown view "stpes"; did you mean "steps"?` {
		t.Errorf("a near miss: %q", got)
	}
	if got := Unknown("view", "zzzzzz", views); got != `unknown view "zzzzzz"; want steps, show or logs` {
		t.Errorf("no near word: %q", got)
	}
}

func TestMisplaced(t *testing.T) {
	fs := NewSet("x")
	fs.Int("plan", 0, "")
	fs.Int("attempt", 0, "")
	takes := map[string][]string{"plan": {"logs", "report"}, "attempt": {"logs"}}
	if _, err := Parse(fs, []string{"--plan", "2", "--attempt", "1"}); err != nil {
		t.Fatal(err)
	}
	if got := Misplaced(fs, "planc trace", "logs", takes); got != "" {
		t.Errorf("logs takes both: %q", got)
	}
	if got := Misplaced(fs, "planc trace", "report", takes); got != "--attempt is for planc trace logs, not report" {
		t.Errorf("report: %q", got)
	}
}
