package traceview

import (
	"bufio"
	"cmp"
	"html/template"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/planc/planc/graph"
	"github.com/planc/planc/tracefile"
)

// htmlWidth is the timeline's width in pixels, the bars' room.
const htmlWidth = 760

// headLines is how many lines of a step's kept output its row shows.
const headLines = 10

// htmlKinds are the timeline's groups, in order: the tool lane, shell
// steps, capsules, then steps of no known kind.
var htmlKinds = []struct{ kind, title string }{
	{"tool", "Tool lane"},
	{"shell", "Shell"},
	{"capsule", "Capsule"},
	{"", "Other"},
}

// htmlBar is one bar of the page.
type htmlBar struct {
	X, W   string // position and width, in pixels
	Status string
	Fill   string
	Title  string
}

// htmlRow is one row of the page.
type htmlRow struct {
	StepID, Status, Fill, Time string
	Reused                     bool
	Bars                       []htmlBar
	Error                      string
	Output                     string
}

// htmlGroup is the rows of one kind.
type htmlGroup struct {
	Title string
	Kind  string
	Rows  []htmlRow
}

// htmlPage is what the page template is given.
type htmlPage struct {
	Title, Session, PlanID, Outcome, Total, Started string
	N, Runs                                         int
	Succeeded, Failed, Skipped, NotRun, Steps       int
	Width                                           int
	Groups                                          []htmlGroup
	Legend                                          []htmlBar
}

// barColor is a bar's colour by its status: the border colour of
// graph.StatusColor (stronger than its fill), amber for a dispatch that
// did not end.
func barColor(status string) string {
	switch status {
	case "success", "failed", "skipped":
		_, line := graph.StatusColor(status)
		return line
	}
	return "#d97706"
}

// px formats a pixel position with one decimal.
func px(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// WriteHTML writes plan n of the session as one self-contained HTML page
// (`planc trace html`): the plan's summary, then a timeline with one row
// per step, grouped by kind (tool lane, shell, capsule), one bar per
// dispatch from its start to its end, coloured by status, each bar with a
// title (shown on hover) and each row a details element (opened by a
// click) with the step's error and the first lines of its kept output.
// The page has inline CSS and SVG only: no script, no network.
func WriteHTML(w io.Writer, s *tracefile.Session, n int) error {
	tl, err := PlanTimeline(s, n)
	if err != nil {
		return err
	}
	total := tl.Total()
	scale := 0.0
	if total > 0 {
		scale = htmlWidth / float64(total)
	}
	page := htmlPage{
		Title: "planc run of " + tracefile.Clean(tl.ID), Session: tracefile.Clean(tl.Session), PlanID: tracefile.Clean(tl.ID), N: n, Runs: tl.Runs,
		Outcome: cmp.Or(tracefile.Clean(tl.Outcome), "unfinished"), Total: tracefile.Duration(total),
		Succeeded: tl.Succeeded, Failed: tl.Failed, Skipped: tl.Skipped, NotRun: tl.NotRun, Steps: len(tl.Rows),
		Width: htmlWidth,
	}
	if !tl.Start.IsZero() {
		page.Started = tl.Start.UTC().Format(time.RFC3339)
	}
	for _, st := range []string{"success", "failed", "skipped", "unsettled"} {
		page.Legend = append(page.Legend, htmlBar{Status: st, Fill: barColor(st)})
	}
	groups := make([]htmlGroup, len(htmlKinds))
	for i, k := range htmlKinds {
		groups[i] = htmlGroup{Title: k.title, Kind: cmp.Or(k.kind, "other")}
	}
	for _, r := range tl.Rows {
		g := len(htmlKinds) - 1
		for i, k := range htmlKinds {
			if k.kind == r.Kind {
				g = i
				break
			}
		}
		fill, _ := graph.StatusColor(r.Status)
		row := htmlRow{StepID: tracefile.Clean(r.StepID), Status: cmp.Or(tracefile.Clean(r.Status), "not run"), Fill: fill, Reused: r.Reused, Error: tracefile.Clean(r.Error)}
		if len(r.Bars) > 0 {
			row.Time = tracefile.Duration(r.Duration)
		}
		for i := range r.Bars {
			b := &r.Bars[i]
			bar := htmlBar{Status: tracefile.Clean(b.Status), Fill: barColor(b.Status)}
			x, wd := 0.0, 1.0
			if !b.Start.IsZero() && scale > 0 {
				x = float64(b.Start.Sub(tl.Start)) * scale
				if !b.End.IsZero() {
					wd = max(float64(b.End.Sub(b.Start))*scale, 1)
				}
			}
			bar.X, bar.W = px(x), px(min(wd, htmlWidth-x+1))
			bar.Title = r.StepID + " attempt " + strconv.Itoa(b.Attempt)
			if b.Redrive > 0 {
				bar.Title += " (redrive " + strconv.Itoa(b.Redrive) + ")"
			}
			bar.Title += ": " + b.Status
			if b.Status == "success" || b.Status == "failed" {
				bar.Title += " after " + tracefile.Duration(b.Duration)
			}
			if b.Error != "" {
				bar.Title += ": " + b.Error
			}
			bar.Title = tracefile.Clean(bar.Title)
			row.Bars = append(row.Bars, bar)
		}
		if len(r.Bars) > 0 {
			row.Output = tl.OutputHead(&r.Bars[len(r.Bars)-1], headLines)
		}
		groups[g].Rows = append(groups[g].Rows, row)
	}
	for _, g := range groups {
		if len(g.Rows) > 0 {
			page.Groups = append(page.Groups, g)
		}
	}
	bw := bufio.NewWriter(w)
	if err := htmlTemplate().Execute(bw, page); err != nil {
		return err
	}
	return bw.Flush()
}

// htmlTemplate is the page, parsed at its first use rather than at every
// planc process's start (each shim's too). html/template escapes every
// value for its context (text, attribute, CSS colour).
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
})

// pageHTML is htmlTemplate's text.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #0f172a; background: #fff; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
h2 { font-size: 1.05em; margin: 1.2em 0 .3em; border-bottom: 1px solid #e5e7eb; }
.summary { display: flex; flex-wrap: wrap; gap: .4em 1.6em; margin: 0; }
.summary dt { color: #64748b; }
.summary dd { margin: 0 0 0 .3em; font-weight: 600; }
.summary div { display: flex; }
.outcome-completed { color: #15803d; }
.outcome-failed, .outcome-canceled, .outcome-unfinished { color: #b91c1c; }
.legend { margin: .8em 0; color: #475569; }
.legend span { display: inline-block; width: .9em; height: .9em; vertical-align: middle; margin: 0 .3em 0 1em; }
details.row { content-visibility: auto; contain-intrinsic-size: auto 18px; }
details.row > summary { display: grid; grid-template-columns: 16em 6em 5em {{.Width}}px; align-items: center; list-style: none; cursor: pointer; padding: 1px 0; }
details.row > summary::-webkit-details-marker { display: none; }
details.row > summary:hover { background: #f1f5f9; }
.id { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: ui-monospace, monospace; }
.status { font-size: .85em; border-radius: 3px; padding: 0 .3em; margin-right: .4em; border: 1px solid #cbd5e1; }
.time { color: #475569; font-size: .85em; text-align: right; padding-right: .5em; }
svg.lane { background: #f8fafc; display: block; }
details.row pre { margin: .2em 0 .6em 16em; padding: .4em .6em; background: #f1f5f9; white-space: pre-wrap; max-width: {{.Width}}px; font-size: .85em; }
.error { color: #b91c1c; }
</style>
</head>
<body>
<h1>{{.PlanID}}</h1>
<dl class="summary">
<div><dt>plan</dt><dd>{{.N}}</dd></div>
<div><dt>outcome</dt><dd class="outcome-{{.Outcome}}">{{.Outcome}}</dd></div>
<div><dt>steps</dt><dd>{{.Steps}}</dd></div>
<div><dt>succeeded</dt><dd>{{.Succeeded}}</dd></div>
<div><dt>failed</dt><dd>{{.Failed}}</dd></div>
<div><dt>skipped</dt><dd>{{.Skipped}}</dd></div>
<div><dt>not run</dt><dd>{{.NotRun}}</dd></div>
<div><dt>runs</dt><dd>{{.Runs}}</dd></div>
<div><dt>total time</dt><dd class="total">{{.Total}}</dd></div>
<div><dt>started</dt><dd class="started">{{.Started}}</dd></div>
<div><dt>session</dt><dd>{{.Session}}</dd></div>
</dl>
<div class="legend">bars:{{range .Legend}}<span style="background: {{.Fill}}"></span>{{.Status}}{{end}}; hover a bar for its attempt, click a row for its error and output</div>
{{range .Groups}}<section class="group" data-kind="{{.Kind}}">
<h2>{{.Title}} ({{len .Rows}})</h2>
{{range .Rows}}<details class="row" data-status="{{.Status}}"><summary><span class="id" title="{{.StepID}}">{{.StepID}}</span><span><span class="status" style="background: {{.Fill}}">{{.Status}}</span>{{if .Reused}}reused{{end}}</span><span class="time">{{.Time}}</span><svg class="lane" width="{{$.Width}}" height="14">{{range .Bars}}<rect class="bar" data-status="{{.Status}}" x="{{.X}}" y="2" width="{{.W}}" height="10" fill="{{.Fill}}"><title>{{.Title}}</title></rect>{{end}}</svg></summary>
<pre>{{if .Error}}<span class="error">error: {{.Error}}</span>
{{end}}{{if .Output}}{{.Output}}{{else}}(no kept output){{end}}</pre></details>
{{end}}</section>
{{end}}</body>
</html>
`
