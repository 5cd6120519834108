package ir_test

import (
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/ir"
)

// TestLowerGraph: steps by index, deps in depends_on order without
// duplicates, dependents ascending, in-degrees and roots.
func TestLowerGraph(t *testing.T) {
	prog := lower(t,
		`{"id": "a", "tool": "t"}`,
		`{"id": "b", "shell": "x", "depends_on": ["a"]}`,
		`{"id": "c", "tool": "t", "depends_on": ["b", "a", "b"]}`,
		`{"id": "d", "tool": "t"}`)
	var deps, dependents [][]int32
	for _, s := range prog.Steps {
		deps = append(deps, s.Deps)
		dependents = append(dependents, s.Dependents)
	}
	diff(t, "deps", [][]int32{nil, {0}, {1, 0}, nil}, deps)
	diff(t, "dependents", [][]int32{{1, 2}, {2}, nil, nil}, dependents)
	diff(t, "in-degrees", []int32{0, 1, 2, 0}, prog.InDegree)
	diff(t, "roots", []int32{0, 3}, prog.Roots)
	if err := prog.Validate(); err != nil {
		t.Error(err)
	}
}

// TestLowerSlots: a step's reference slots are its distinct references, in
// source order across input and if (S9); a shell step's input is ignored,
// so its references are not slots (S14).
func TestLowerSlots(t *testing.T) {
	prog := lower(t,
		`{"id": "a", "tool": "t"}`,
		`{"id": "b", "tool": "t", "if": "$a.status == 'success' && $a.output != ''", "input": {"x": "$a.output", "y": ["$b.status", "$a.status"]}}`,
		`{"id": "c", "shell": "x", "input": {"x": "$a.output"}}`)
	diff(t, "b's slots", []ir.Ref{{Step: 0, Field: ir.FieldStatus}, {Step: 0, Field: ir.FieldOutput}, {Step: 1, Field: ir.FieldStatus}}, prog.Steps[1].Refs)
	diff(t, "b's input", `{"x":@1,"y":[@2,@0]}`, prog.Steps[1].Input.String())
	if prog.Steps[2].Refs != nil || prog.Steps[2].Input != nil {
		t.Errorf("shell step: refs %v input %v", prog.Steps[2].Refs, prog.Steps[2].Input)
	}
	diff(t, "argv", []string{"x"}, prog.Steps[2].Argv)
}

// TestLowerInputs: canonical JSON, the objective of capsule steps (S13).
func TestLowerInputs(t *testing.T) {
	prog := lower(t,
		`{"id": "a", "tool": "t", "input": { "s" : "tab\there <&>", "n": -1.5e3, "l": [true, false, null, {}], "e": []}}`,
		`{"id": "b", "tool": "t", "input": "$a.output"}`,
		`{"id": "c", "capsule": "worker", "input": "do \"it\""}`,
		`{"id": "d", "capsule": "worker", "input": {"objective": "$a.output"}}`,
		`{"id": "e", "tool": "t"}`)
	diff(t, "a", `{"s":"tab\there <&>","n":-1.5e3,"l":[true,false,null,{}],"e":[]}`, string(prog.Steps[0].Input.Text))
	diff(t, "b", "@0", prog.Steps[1].Input.String())
	diff(t, "c", &ir.Text{Const: `do "it"`, Slot: -1}, prog.Steps[2].Objective)
	diff(t, "d", &ir.Text{Slot: 0}, prog.Steps[3].Objective)
	if prog.Steps[4].Input != nil {
		t.Error("a step without input got a template")
	}
}

// TestLowerOnlyChecked: what Lower cannot lower, check refuses, so it
// never reaches Lower: a *check.Plan is the only thing Lower takes, and
// Load makes none of these.
func TestLowerOnlyChecked(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		want  string
	}{
		{"duplicate id", []string{`{"id": "a", "tool": "t"}`, `{"id": "a", "tool": "t"}`}, `two steps have the id "a"`},
		{"no kind", []string{`{"id": "a"}`}, "declares none of tool, shell, capsule"},
		{"two kinds", []string{`{"id": "a", "tool": "t", "shell": "x"}`}, "declares none of tool, shell, capsule"},
		{"unknown dependency", []string{`{"id": "a", "tool": "t", "depends_on": ["b"]}`}, `depends on "b"`},
		{"unknown reference", []string{`{"id": "a", "tool": "t", "input": "$b.output"}`}, "reference $b.output names a step"},
		{"reference field", []string{`{"id": "a", "tool": "t", "input": "$a.stdout"}`}, "reads neither output nor status"},
		{"condition", []string{`{"id": "a", "tool": "t", "if": "$a.status"}`}, "condition did not parse"},
		{"shell quotes", []string{`{"id": "a", "shell": "bash -c 'x"}`}, "cannot be split"},
		{"shell empty", []string{`{"id": "a", "shell": "  "}`}, "has no words"},
		{"capsule no input", []string{`{"id": "a", "capsule": "w"}`}, "must be a string"},
		{"capsule object", []string{`{"id": "a", "capsule": "w", "input": {"task": "x"}}`}, "must be a string"},
		{"negative retries", []string{`{"id": "a", "tool": "t", "retries": -1}`}, "negative"},
		{"cycle", []string{`{"id": "a", "tool": "t", "depends_on": ["c"]}`, `{"id": "b", "tool": "t", "depends_on": ["a"]}`, `{"id": "c", "tool": "t", "depends_on": ["b"]}`},
			`dependency cycle: "a" → "b" → "c" → "a"`},
		{"self", []string{`{"id": "a", "tool": "t", "depends_on": ["a"]}`}, `dependency cycle: "a" → "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, ds := check.Load(planText(tt.steps...), nil); p != nil || !ast.HasErrors(ds) {
				t.Errorf("check accepted it (%v); Lower would fail with %q", ds, tt.want)
			}
		})
	}
}

// TestValidate: hand-made programs are checked before they run.
func TestValidate(t *testing.T) {
	good := func() *ir.Program {
		return &ir.Program{ID: "p", InDegree: []int32{0, 1}, Roots: []int32{0}, Steps: []ir.Step{
			{ID: "a", Kind: ir.KindTool, Dependents: []int32{1}},
			{ID: "b", Kind: ir.KindShell, Argv: []string{"x"}, Deps: []int32{0}, Refs: []ir.Ref{{Step: 0}},
				Cond: &ir.Cond{Code: []ir.Instr{{Op: ir.OpEq, A: 0, B: ^0}}, Consts: []string{""}}},
		}}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("good program: %v", err)
	}
	for name, breakIt := range map[string]func(p *ir.Program){
		"no id":      func(p *ir.Program) { p.ID = "" },
		"in-degree":  func(p *ir.Program) { p.InDegree[1] = 0 },
		"roots":      func(p *ir.Program) { p.Roots = nil },
		"dependents": func(p *ir.Program) { p.Steps[0].Dependents = nil },
		"dep range":  func(p *ir.Program) { p.Steps[1].Deps = []int32{7} },
		"kind":       func(p *ir.Program) { p.Steps[0].Kind = 0 },
		"argv":       func(p *ir.Program) { p.Steps[1].Argv = nil },
		"capsule":    func(p *ir.Program) { p.Steps[0].Kind = ir.KindCapsule },
		"slot":       func(p *ir.Program) { p.Steps[1].Cond.Code[0].A = 3 },
		"const":      func(p *ir.Program) { p.Steps[1].Cond.Code[0].B = ^3 },
		"jump back": func(p *ir.Program) {
			p.Steps[1].Cond.Code = append(p.Steps[1].Cond.Code, ir.Instr{Op: ir.OpJumpIfTrue})
		},
		"opcode":       func(p *ir.Program) { p.Steps[1].Cond.Code[0].Op = 99 },
		"duplicate id": func(p *ir.Program) { p.Steps[1].ID = "a" },
		"reference":    func(p *ir.Program) { p.Steps[1].Refs[0].Step = 9 },
		"on_error":     func(p *ir.Program) { p.Steps[0].OnError = 7 },
		"template holes": func(p *ir.Program) {
			p.Steps[0].Input = &ir.Template{Text: []byte("[]"), Holes: []ir.Hole{{Offset: 1, Slot: 0}}}
		},
		"cycle": func(p *ir.Program) {
			p.Steps[0].Deps, p.Steps[1].Dependents, p.InDegree[0], p.Roots = []int32{1}, []int32{0}, 1, nil
		},
	} {
		p := good()
		breakIt(p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
