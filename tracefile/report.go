package tracefile

import (
	"bytes"
	"encoding/json"
)

// keptReport is the part of a kept report (sessionfmt.ReportPath) a redrive reads.
type keptReport struct {
	PlanID string       `json:"plan_id"`
	Steps  []reportStep `json:"steps"`
}

// reportStep is one entry of a kept report's steps.
type reportStep struct {
	StepID string  `json:"step_id"`
	Status string  `json:"status"`
	Output *string `json:"output"`
}

// decodeReport decodes a kept report: a report as the VM makes it takes a
// fast path (fastReport); anything else goes through encoding/json.
func decodeReport(b []byte, rep *keptReport) error {
	if fastReport(b, rep) {
		return nil
	}
	*rep = keptReport{}
	return json.Unmarshal(b, rep)
}

// fastReport decodes b into rep when it is a report with the members
// of docs/plans.md, "The report", only (plan_id, completed, canceled,
// failed_step, steps; each step step_id, status, output, error), giving what
// encoding/json would; it returns false for anything else.
func fastReport(b []byte, rep *keptReport) bool {
	d := fastDecoder{b: b}
	seenSteps := false
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "plan_id":
			return d.nullOr(func() bool { s, ok := d.str(); rep.PlanID = s; return ok })
		case "completed", "canceled":
			return d.literal("true") || d.literal("false") || d.literal("null")
		case "failed_step":
			return d.nullOr(func() bool { _, ok := d.str(); return ok })
		case "steps":
			if seenSteps {
				return false // encoding/json would decode into the first list's entries
			}
			seenSteps = true
			if d.literal("null") {
				rep.Steps = nil
				return true
			}
			return d.steps(&rep.Steps)
		}
		return false
	}) && d.end()
}

// steps decodes a report's list of steps, into *dst's room when it has
// some (a caller that knows how many steps to expect makes it).
func (d *fastDecoder) steps(dst *[]reportStep) bool {
	list := (*dst)[:0]
	if cap(list) == 0 {
		list = make([]reportStep, 0, bytes.Count(d.b[d.i:], []byte(`"step_id"`)))
	}
	if !d.array(func() bool {
		var s reportStep
		ok := d.object(func(key []byte) bool {
			switch string(key) {
			case "step_id":
				return d.nullOr(func() bool { v, ok := d.str(); s.StepID = v; return ok })
			case "status":
				return d.nullOr(func() bool { v, ok := d.str(); s.Status = v; return ok })
			case "output":
				if d.literal("null") {
					s.Output = nil
					return true
				}
				v, ok := d.str()
				s.Output = &v
				return ok
			case "error":
				return d.nullOr(func() bool { _, ok := d.str(); return ok })
			}
			return false
		})
		list = append(list, s)
		return ok
	}) {
		return false
	}
	*dst = list
	return true
}
