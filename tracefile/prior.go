package tracefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
)

// KeptOutput names one kept output file: step StepID's attempt Attempt,
// at Path (the session directory joined with sessionfmt.OutputPath).
type KeptOutput struct {
	StepID  string
	Attempt int
	Path    string
}

// CutFunc returns the text a step's result carried for a kept whole
// output: the host's own S20 cut, with the mark naming the file as the
// host named it when the step ran (sessionfmt.CutText does the cutting).
type CutFunc func(k KeptOutput, whole string) string

// StepPrior is what the record holds of one step for a redrive: the host
// (host/redrive.go) turns it into the VM's vm.Prior.
type StepPrior struct {
	// Status is the step's last settled status as the trace spells it
	// (sessionfmt.StepStatuses), "" when it never settled or runs again.
	Status string
	// Output is the output text a success's result carried.
	Output string
	// Error is the step's recorded error, "" for none.
	Error string
	// Attempt is the step's highest attempt.
	Attempt int
}

// Prior returns what a redrive of the plan the record is of reuses: one
// StepPrior per step id of ids (the plan's steps, in its order), indexed
// like ids (S26).
//
// Each step gets its last settled status and error and its highest
// attempt; a step whose last dispatch never settled gets no status (it
// runs again, S27). A success also gets the output text its result
// carried, the report's cut text (its dependents read the whole text from
// the kept output through the host, vm.WholeOutputs): from the plan's output index (sessionfmt.OutputIndexPath) when its
// line of the attempt that succeeded holds the text (a short output);
// otherwise from the newest kept report, sessionfmt.ReportPath(N), when that report
// lists the step as succeeded (it holds the text exactly as returned);
// otherwise from the kept output of that attempt, sessionfmt.OutputPath(N, id,
// attempt): cut as its index line says (a file that is not as long as
// the line says is not the output the step had), or without one cut by
// cut (nil: sessionfmt.CutText with sessionfmt.OutputLimit, naming the file by its path). A success whose output can be read from
// neither has no status, with a note: it runs again rather than hand its
// dependents a wrong text.
//
// The notes are those about the report and the outputs; the trace's own
// are in p.Notes.
func (p *PlanRecord) Prior(ids []string, cut CutFunc) ([]StepPrior, []Note) {
	if cut == nil {
		cut = func(k KeptOutput, whole string) string {
			return sessionfmt.CutText(whole, sessionfmt.OutputLimit, k.Path)
		}
	}
	var notes []Note
	prior := make([]StepPrior, len(ids))
	matched := 0
	var report []*string // by index in p.Steps: the output of a success in the kept report
	reportRead := false
	var index []*sessionfmt.IndexRecord // by index in p.Steps: the output index's line of a success
	indexRead := false
	for i, id := range ids {
		si := i // most often the trace met the steps in plan order
		if si >= len(p.Steps) || p.Steps[si].ID != id {
			var ok bool
			if si, ok = p.byID[id]; !ok {
				continue
			}
		}
		matched++
		s := &p.Steps[si]
		pr := &prior[i]
		pr.Attempt = s.Attempt
		if s.Unsettled || s.Status == "" {
			continue
		}
		if !slices.Contains(sessionfmt.StepStatuses, s.Status) {
			notes = append(notes, Note{Text: fmt.Sprintf("step %s settled with the unknown status %s; it runs again", quote(id), quote(s.Status))})
			continue
		}
		pr.Status, pr.Error = s.Status, s.Error
		if pr.Status != sessionfmt.StatusSuccess {
			continue
		}
		if !indexRead {
			index, indexRead = p.readIndex(), true
		}
		r := at(index, si)
		k := KeptOutput{StepID: id, Attempt: s.SettledAttempt, Path: p.outputFile(id, s.SettledAttempt)}
		text, have := "", false
		if r != nil && r.HasOutput {
			text, have = r.Output, true
		} else {
			if !reportRead {
				report, reportRead = p.reportOutputs(&notes), true
			}
			if report != nil && report[si] != nil {
				text, have = *report[si], true
				// The report's JSON holds U+FFFD for each byte of an
				// output that was not valid UTF-8, which the index line
				// could not hold either: the kept file has the bytes
				// references read the first time (S20), when it holds
				// what the report shows.
				if r != nil && strings.ContainsRune(text, utf8.RuneError) {
					if raw, ok := textFromFile(r, k.Path); ok && !utf8.ValidString(raw) && jsonText(raw) == text {
						text = raw
					}
				}
			}
		}
		if have {
			// A cut text stands for the whole output in its kept file, which
			// references read (S20): only while the file still holds it.
			if size := int64(-1); len(text) > sessionfmt.OutputLimit {
				if r != nil {
					size = r.Bytes
				}
				if !wholeKept(text, k.Path, size) {
					notes = append(notes, Note{Text: fmt.Sprintf("step %s succeeded, but its whole output, cut in its result, is not in its kept file %s any more (removed or changed); it runs again", quote(id), sessionfmt.OutputPath(p.N, id, s.SettledAttempt))})
					pr.Status, pr.Error = "", ""
					continue
				}
			}
			pr.Output = text
			continue
		}
		if r != nil {
			if text, ok := textFromFile(r, k.Path); ok {
				pr.Output = text
			} else {
				notes = append(notes, Note{Text: fmt.Sprintf("step %s succeeded, but its kept output %s cannot be read or is not the %d bytes its output index line says; it runs again", quote(id), sessionfmt.OutputPath(p.N, id, s.SettledAttempt), r.Bytes)})
				pr.Status, pr.Error = "", ""
			}
			continue
		}
		whole, err := regfile.ReadFile(k.Path)
		if err != nil {
			notes = append(notes, Note{Text: fmt.Sprintf("step %s succeeded, but its kept output cannot be read (%v); it runs again", quote(id), err)})
			pr.Status, pr.Error = "", ""
			continue
		}
		pr.Output = cut(k, string(whole))
	}
	if matched < len(p.Steps) {
		declared := make(map[string]bool, len(ids))
		for _, id := range ids {
			declared[id] = true
		}
		for _, s := range p.Steps {
			if !declared[s.ID] {
				notes = append(notes, Note{Text: fmt.Sprintf("the trace names step %s, which plan %d does not declare; left out", quote(s.ID), p.N)})
			}
		}
	}
	return prior, notes
}

// reportOutputs reads the newest kept report of the plan and returns, by
// index in p.Steps, the outputs of the steps it lists as succeeded (""
// for none); nil when there is no usable report (a note says why, unless
// it is just absent).
func (p *PlanRecord) reportOutputs(notes *[]Note) []*string {
	if p.Dir == "" {
		return nil
	}
	path := filepath.Join(p.Dir, filepath.FromSlash(sessionfmt.ReportPath(p.N)))
	b, err := regfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	rep := keptReport{Steps: make([]reportStep, 0, len(p.Steps))}
	if err == nil {
		err = decodeReport(b, &rep)
	}
	if err == nil && rep.PlanID != p.ID {
		err = fmt.Errorf("it is the report of plan %s, not %s", quote(rep.PlanID), quote(p.ID))
	}
	if err != nil {
		*notes = append(*notes, Note{Text: fmt.Sprintf("%s: %v; the kept outputs are read instead", sessionfmt.ReportPath(p.N), err)})
		return nil
	}
	out := make([]*string, len(p.Steps))
	empty := ""
	for i := range rep.Steps {
		s := &rep.Steps[i]
		si, ok := p.byID[s.StepID]
		if !ok || s.Status != "success" {
			continue
		}
		out[si] = &empty
		if s.Output != nil {
			out[si] = s.Output
		}
	}
	return out
}

// readIndex reads the plan's output index: by index in p.Steps, the line
// of the attempt that settled each success; nil when it has none.
func (p *PlanRecord) readIndex() []*sessionfmt.IndexRecord {
	if p.Dir == "" {
		return nil
	}
	want := func(si, attempt int) bool {
		s := &p.Steps[si]
		return s.Status == "success" && s.SettledAttempt == attempt
	}
	ids := make([]string, len(p.Steps))
	for i := range p.Steps {
		ids[i] = p.Steps[i].ID
	}
	return readIndex(filepath.Join(p.Dir, filepath.FromSlash(sessionfmt.OutputIndexPath(p.N))), ids, p.byID, want)
}

// outputFile is the kept output of a step's attempt, in the session
// directory.
func (p *PlanRecord) outputFile(id string, attempt int) string {
	return filepath.Join(p.Dir, filepath.FromSlash(sessionfmt.OutputPath(p.N, id, attempt)))
}

// at returns index[i], nil when index has none.
func at(index []*sessionfmt.IndexRecord, i int) *sessionfmt.IndexRecord {
	if i < len(index) {
		return index[i]
	}
	return nil
}

// wholeKept reports whether the kept file at path still holds the whole
// output that text, a cut result, stands for: its size is size (unless
// size is negative) and it begins with text's uncut part.
func wholeKept(text, path string, size int64) bool {
	f, err := regfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || size >= 0 && fi.Size() != size || fi.Size() <= sessionfmt.OutputLimit {
		return false
	}
	head := make([]byte, sessionfmt.OutputLimit+utf8.UTFMax)
	n, _ := io.ReadFull(f, head)
	prefix := string(head[:n])
	return strings.HasPrefix(text, prefix[:sessionfmt.CutPoint(prefix, sessionfmt.OutputLimit)])
}

// jsonText is s as the kept report holds it: encoding/json, which wrote
// the report, writes each byte that is not part of valid UTF-8 as U+FFFD.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	var back string
	json.Unmarshal(b, &back)
	return back
}
