package ir

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// String returns the program's text form (see Dump).
func (p *Program) String() string {
	var b strings.Builder
	p.Dump(&b) // a strings.Builder never fails
	return b.String()
}

// Dump writes the program's stable, line-oriented text form to w: a header
// with the plan id, the step count and the roots, then one block per step
// giving its index, id, kind and target, shell words, dependencies and
// dependents, on_error, retries, reference slots, condition instructions and
// constants, and input template or objective. docs/ir.md specifies it; the
// form only changes together with that document.
func (p *Program) Dump(w io.Writer) error {
	bw := bufio.NewWriter(w)
	d := dumper{w: bw, p: p}
	d.line("plan ", strconv.Quote(p.ID))
	d.line("steps ", strconv.Itoa(len(p.Steps)))
	d.line("roots ", d.stepList(p.Roots))
	for i := range p.Steps {
		d.step(i)
	}
	return bw.Flush()
}

type dumper struct {
	w *bufio.Writer
	p *Program
}

func (d *dumper) line(parts ...string) {
	for _, s := range parts {
		d.w.WriteString(s)
	}
	d.w.WriteByte('\n')
}

// stepList formats indices as [0 "a", 2 "c"].
func (d *dumper) stepList(idx []int32) string {
	var b strings.Builder
	b.WriteByte('[')
	for k, i := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.stepName(i))
	}
	b.WriteByte(']')
	return b.String()
}

// stepName formats one index as 0 "a", or the bare number when it is out of
// range (a hand-made program).
func (d *dumper) stepName(i int32) string {
	if i < 0 || int(i) >= len(d.p.Steps) {
		return strconv.Itoa(int(i))
	}
	return strconv.Itoa(int(i)) + " " + strconv.Quote(d.p.Steps[i].ID)
}

func (d *dumper) step(i int) {
	s := &d.p.Steps[i]
	d.line()
	d.line("step ", strconv.Itoa(i), " ", strconv.Quote(s.ID))
	d.line("  ", s.Kind.String(), " ", strconv.Quote(s.Target))
	if s.Argv != nil {
		words := make([]string, len(s.Argv))
		for k, a := range s.Argv {
			words[k] = strconv.Quote(a)
		}
		d.line("  argv [", strings.Join(words, " "), "]")
	}
	d.line("  deps ", d.stepList(s.Deps))
	d.line("  dependents ", d.stepList(s.Dependents))
	d.line("  on_error ", s.OnError.String())
	d.line("  retries ", strconv.Itoa(s.Retries))
	for k, r := range s.Refs {
		id := strconv.Itoa(int(r.Step))
		if r.Step >= 0 && int(r.Step) < len(d.p.Steps) {
			id = d.p.Steps[r.Step].ID
		}
		d.line("  ref @", strconv.Itoa(k), " $", id, ".", r.Field.String(), " (step ", strconv.Itoa(int(r.Step)), ")")
	}
	if c := s.Cond; c != nil {
		d.line("  if ", c.Source)
		for k, v := range c.Consts {
			d.line("    const #", strconv.Itoa(k), " ", strconv.Quote(v))
		}
		for pc, in := range c.Code {
			d.line("    ", strconv.Itoa(pc), " ", in.String())
		}
	}
	if t := s.Input; t != nil {
		d.line("  input ", t.String())
	}
	if o := s.Objective; o != nil {
		if o.Slot < 0 {
			d.line("  objective ", strconv.Quote(o.Const))
		} else {
			d.line("  objective @", strconv.Itoa(int(o.Slot)))
		}
	}
}

// String formats the instruction as the text form does: "eq @0 #1" (a
// reference slot, a constant) or "jump_if_true 3".
func (in Instr) String() string {
	if in.Op.IsCompare() {
		return in.Op.String() + " " + operandString(in.A) + " " + operandString(in.B)
	}
	return in.Op.String() + " " + strconv.Itoa(int(in.A))
}

func operandString(a int32) string {
	if a >= 0 {
		return "@" + strconv.Itoa(int(a))
	}
	return "#" + strconv.Itoa(int(^a))
}

// String returns the template's text with each hole written as @N, N its
// slot: an @ cannot occur in JSON outside a string, so the form is
// unambiguous.
func (t *Template) String() string {
	var b strings.Builder
	last := 0
	for _, h := range t.Holes {
		if int(h.Offset) < last || int(h.Offset) > len(t.Text) {
			break
		}
		b.Write(t.Text[last:h.Offset])
		last = int(h.Offset)
		b.WriteString("@" + strconv.Itoa(int(h.Slot)))
	}
	b.Write(t.Text[last:])
	return b.String()
}
