package protect

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variables a shell runs as code. A step can make a later shell run a
// command without writing it out as a command of its own: bash runs
// PROMPT_COMMAND before each prompt of an interactive shell, expands the
// command substitutions of PS0, PS1, PS2 and PS4 (PS4 before each command
// under set -x), and takes each BASH_FUNC_NAME%% of its environment whose
// value starts with "() {" as the function NAME — so
// `env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls` runs rm. Wherever a step
// sets one (NAME=VALUE before a command, in export, declare, local,
// readonly or typeset, as an operand of env or sudo), its value is read as
// the code it is; a value not known before the step runs is, under a deny
// on-shell hook, a command that cannot be known.

// codeVar says how a shell runs the value of the variable name.
type codeVar int

const (
	notCode    codeVar = iota
	codeScript         // PROMPT_COMMAND: a script
	codePrompt         // PS0, PS1, PS2, PS4: a string whose substitutions run
	codeFunc           // BASH_FUNC_NAME%%: a function's definition
)

// codeVarOf returns how a shell runs the value of the variable name.
func codeVarOf(name string) codeVar {
	switch name {
	case "PROMPT_COMMAND":
		return codeScript
	case "PS0", "PS1", "PS2", "PS4":
		return codePrompt
	}
	if fn, ok := strings.CutPrefix(name, "BASH_FUNC_"); ok && (strings.HasSuffix(fn, "%%") || strings.HasSuffix(fn, "()")) {
		return codeFunc
	}
	return notCode
}

// assignWord reads NAME=VALUE given as one word, an operand of env or
// sudo, or an argument of export and its kin that is an expansion there.
func (a *analyzer) assignWord(w word, cwds []string, depth int) {
	s := w.val
	if w.kind != wordExact {
		s = w.pat
	}
	name, _, ok := strings.Cut(s, "=")
	if !ok || codeVarOf(name) == notCode {
		return
	}
	if w.kind != wordExact {
		a.codeValue(name, unknownWord, cwds, depth)
		return
	}
	_, val, _ := strings.Cut(w.val, "=")
	a.codeValue(name, exactWord(val), cwds, depth)
}

// assignNode reads an assignment of a script.
func (a *analyzer) assignNode(as *syntax.Assign, cwds []string, depth int) {
	if as == nil {
		return
	}
	if as.Name == nil {
		// An argument of export and its kin, an assignment only when it runs.
		if as.Value != nil {
			a.assignWord(convWord(as.Value), cwds, depth)
		}
		return
	}
	if as.Naked || codeVarOf(as.Name.Value) == notCode {
		return
	}
	var vals []*syntax.Word
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			vals = append(vals, e.Value)
		}
	} else {
		vals = append(vals, as.Value)
	}
	for _, v := range vals {
		w := exactWord("")
		if v != nil {
			w = convWord(v)
		}
		if as.Append {
			w = unknownWord // what it is appended to is not known here
		}
		a.codeValue(as.Name.Value, w, cwds, depth)
	}
}

// codeValue reads val, the value a step gives the variable name, as the
// code a shell runs it as.
func (a *analyzer) codeValue(name string, val word, cwds []string, depth int) {
	v, ok := val.val, val.kind != wordOpen // an assignment does not glob
	if !ok {
		a.cannotKnow("%s=%s, a variable a shell runs as code, set to a value not known before it runs", name, val.shown())
		return
	}
	switch codeVarOf(name) {
	case codeScript:
		a.script(v, cwds, depth+1)
	case codePrompt:
		w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(v))
		if err != nil {
			a.cannotKnow("%s=%s, a prompt whose substitutions cannot be read", name, v)
			return
		}
		a.substs(w, cwds, depth+1)
	case codeFunc:
		// bash defines NAME only from a value that starts so, and runs
		// nothing else of it.
		if strings.HasPrefix(v, "() {") {
			a.script("f"+v, cwds, depth+1)
		}
	}
}
