package traceview_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
)

// hostileTrace is a run of one step whose id, error and output are made to
// break out of HTML, DOT and a terminal.
const hostileTrace = `{"ts":"2025-01-02T15:04:05Z","event":"session_start","session":"S","capsule":"local/c","version":"1"}
{"ts":"2025-01-02T15:04:05Z","event":"plan_start","session":"S","plan_id":"p","plan_file":"plans/plan-1.json","steps":2}
{"ts":"2025-01-02T15:04:05.100Z","event":"plan_step_start","session":"S","plan_id":"p","step_id":"x</title><script>alert(1)</script>\"\u001b]0;t\u0007","kind":"tool","attempt":1}
{"ts":"2025-01-02T15:04:06.100Z","event":"plan_step","session":"S","plan_id":"p","step_id":"x</title><script>alert(1)</script>\"\u001b]0;t\u0007","attempt":1,"status":"failed","duration_ms":1000,"error":"<img src=x onerror=alert(2)>"}
{"ts":"2025-01-02T15:04:06.100Z","event":"plan_step","session":"S","plan_id":"p","step_id":"later","attempt":0,"status":"skipped","duration_ms":0,"error":null}
{"ts":"2025-01-02T15:04:06.200Z","event":"plan_end","session":"S","plan_id":"p","outcome":"failed","failed_step":"x","succeeded":0,"failed":1,"skipped":1}
`

// TestPictureEscapes: every text of the trace and the kept output reaches
// the page escaped and the drawing quoted; the one bar spans the
// timeline, whose total is from the first dispatch to the last end.
func TestPictureEscapes(t *testing.T) {
	dir := t.TempDir()
	id := "x</title><script>alert(1)</script>\"\x1b]0;t\a"
	tracetest.Write(t, dir, map[string]string{
		sessionfmt.TraceFile:                              hostileTrace,
		sessionfmt.PlanFile(1):                            `{"id": "p", "steps": [{"id": "x</title><script>alert(1)</script>\"\u001b]0;t\u0007", "tool": "notes"}, {"id": "later", "tool": "notes", "depends_on": ["x</title><script>alert(1)</script>\"\u001b]0;t\u0007"]}]}`,
		filepath.ToSlash(sessionfmt.OutputPath(1, id, 1)): "<script>alert(3)</script>\n\x1b[2J line 2\n",
	})
	s, err := tracefile.OpenTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := traceview.WriteHTML(&page, s, 1); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	for _, bad := range []string{"<script", "<img", "\x1b", "\a"} {
		if strings.Contains(p, bad) {
			t.Errorf("the page holds %q:\n%s", bad, p)
		}
	}
	for _, want := range []string{
		`&lt;script&gt;alert(3)&lt;/script&gt;`,
		`\x1b[2J line 2`,
		`error: &lt;img src=x onerror=alert(2)&gt;`,
		`<rect class="bar" data-status="failed" x="0.0" y="2" width="760.0" height="10" fill="#b91c1c">`,
		`<dd class="total">1s</dd>`,
		`<details class="row" data-status="skipped">`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q:\n%s", want, p)
		}
	}
	var dot bytes.Buffer
	if err := traceview.WriteGraph(&dot, s, 1, "dot"); err != nil {
		t.Fatal(err)
	}
	if d := dot.String(); strings.Contains(d, "\x1b") || !strings.Contains(d, `label="x</title><script>alert(1)</script>\"\\x1b]0;t\\a\ntool notes\nfailed in 1s"`) {
		t.Errorf("the drawing:\n%s", d)
	}
}
