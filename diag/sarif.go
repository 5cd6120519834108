package diag

import (
	"io"
	"net/url"
	"path/filepath"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// SARIF 2.1.0 (OASIS), the subset planc writes. See
// https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json"
)

type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	// ColumnKind says how columns are counted: SARIF knows UTF-16 code
	// units or code points, not bytes, so planc converts.
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version"`
	Rules   []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	ShortDescription     sarifMessage  `json:"shortDescription"`
	Help                 *sarifMessage `json:"help,omitempty"`
	DefaultConfiguration sarifConfig   `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	RuleIndex  int               `json:"ruleIndex"`
	Level      string            `json:"level"`
	Message    sarifMessage      `json:"message"`
	Locations  []sarifLocation   `json:"locations"`
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

// sarifRegion gives both the text region (lines, UTF-16 columns, end
// exclusive) and the binary one (byte offset and length); they describe the
// same bytes.
type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
	ByteOffset  int `json:"byteOffset"`
	ByteLength  int `json:"byteLength"`
}

// sarifRules lists every rule planc knows (check's rules, sorted by code,
// then the parser's codes) plus any other code found in ds, and returns
// the index of each code.
func sarifRules(ds []Diagnostic) ([]sarifRule, map[string]int) {
	var rules []sarifRule
	index := map[string]int{}
	add := func(code string, sev ast.Severity, doc, example string) {
		if _, ok := index[code]; ok {
			return
		}
		r := sarifRule{ID: code, ShortDescription: sarifMessage{Text: doc}, DefaultConfiguration: sarifConfig{Level: sev.String()}}
		if example != "" {
			r.Help = &sarifMessage{Text: "reported for: " + example}
		}
		index[code] = len(rules)
		rules = append(rules, r)
	}
	for _, r := range check.Rules() {
		add(r.Code, r.Severity, r.Doc, r.Example)
	}
	for _, c := range parser.Codes() {
		add(c.Code, ast.Error, c.Doc, c.Example)
	}
	for _, d := range ds {
		add(d.Code, d.Severity, d.Code, "")
	}
	return rules, index
}

// WriteSARIF prints ds as a SARIF 2.1.0 log with one run of planc at
// version. failures are the messages of inputs that could not be read;
// they make the run's invocation unsuccessful and appear as its
// notifications.
func WriteSARIF(w io.Writer, ds []Diagnostic, version string, failures []string) error {
	rules, index := sarifRules(ds)
	inv := sarifInvocation{ExecutionSuccessful: len(failures) == 0}
	for _, f := range failures {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifMessage{Text: f}})
	}
	results := make([]sarifResult, 0, len(ds))
	cols := columns{}
	for _, d := range ds {
		res := sarifResult{
			RuleID:    d.Code,
			RuleIndex: index[d.Code],
			Level:     d.Severity.String(),
			Message:   sarifMessage{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(d.File.Name)},
				Region:           cols.region(d.File, d.Span),
			}}},
		}
		if d.Step != "" || d.Suggestion != "" {
			res.Properties = map[string]string{}
			if d.Step != "" {
				res.Properties["step"] = d.Step
			}
			if d.Suggestion != "" {
				res.Properties["suggestion"] = d.Suggestion
			}
		}
		results = append(results, res)
	}
	log := sarifLog{
		Version: sarifVersion,
		Schema:  sarifSchema,
		Runs: []sarifRun{{
			Tool:        sarifTool{Driver: sarifDriver{Name: "planc", Version: version, Rules: rules}},
			Invocations: []sarifInvocation{inv},
			ColumnKind:  "utf16CodeUnits",
			Results:     results,
		}},
	}
	return Encode(w, log)
}

// artifactURI turns a file name into a URI reference: a relative path stays
// relative (with forward slashes, escaped), an absolute one becomes a
// file: URI. Standard input is "-".
func artifactURI(name string) string {
	if name == "-" {
		return name
	}
	p := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		if p[0] != '/' {
			p = "/" + p // Windows drive letter
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// columns converts byte columns to UTF-16 ones, reading each line once
// for all the diagnostics on it when they come in Sort's order.
type columns map[lineKey]*u16Cursor

// u16Cursor is how far a line has been counted: byte offset pos (in the
// line) is UTF-16 column col.
type u16Cursor struct {
	text     []byte
	pos, col int
}

// region converts a span of f to a SARIF region, or nil when the span has
// no position.
func (c columns) region(f *File, sp ast.Span) *sarifRegion {
	if !sp.IsValid() {
		return nil
	}
	end := spanEnd(sp)
	return &sarifRegion{
		StartLine:   int(sp.Start.Line),
		StartColumn: c.utf16Col(f, sp.Start),
		EndLine:     int(end.Line),
		EndColumn:   c.utf16Col(f, end),
		ByteOffset:  int(sp.Start.Offset),
		ByteLength:  int(max(end.Offset-sp.Start.Offset, 0)),
	}
}

// utf16Col converts p's byte column into a 1-based column in UTF-16 code
// units (an invalid byte counts as one unit, as U+FFFD).
func (c columns) utf16Col(f *File, p ast.Pos) int {
	k := lineKey{f, lineStart(f.Src, p)}
	u, ok := c[k]
	if !ok {
		text, _ := lineAt(f.Src, p)
		u = &u16Cursor{text: text, col: 1}
		c[k] = u
	}
	to := clamp(int(p.Offset)-k.start, 0, len(u.text))
	if to < u.pos {
		u.pos, u.col = 0, 1 // out of Sort's order: count the line again
	}
	for u.pos < to {
		r, n := utf8.DecodeRune(u.text[u.pos:])
		if u.pos+n > to {
			// p is inside a character: each of its bytes before p counts
			// as an invalid one; the cursor stays at the character.
			return u.col + to - u.pos
		}
		if r == utf8.RuneError && n == 1 {
			u.col++
		} else {
			u.col += utf16.RuneLen(r)
		}
		u.pos += n
	}
	return u.col
}
