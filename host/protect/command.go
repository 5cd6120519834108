package protect

import (
	"path/filepath"
	"slices"
	"strings"
)

// command reads one simple command: words[0] names it, as a path or a
// bare name. cwds are the directories it may run in.
func (a *analyzer) command(words []word, cwds []string, depth int) {
	if len(words) == 0 || a.found != nil {
		return
	}
	if depth > maxDepth {
		a.truncated = true
		return
	}
	if a.visit != nil {
		a.visit(words)
	}
	name, ok := words[0].exactVal()
	if !ok || name == "" {
		return
	}
	name = filepath.Base(name)
	args := words[1:]
	if spec, ok := wrappers[name]; ok {
		a.wrapper(name, spec, args, cwds, depth)
		return
	}
	if shells[name] {
		a.shell(args, cwds, depth)
		return
	}
	switch name {
	case "eval":
		var parts []string
		for _, w := range args {
			v, ok := w.exactVal()
			if !ok {
				return
			}
			parts = append(parts, v)
		}
		a.script(strings.Join(parts, " "), cwds, depth+1)
	case "xargs":
		a.xargs(args, cwds, depth)
	case "find":
		a.find(args, cwds, depth)
	}
	if f, ok := writers[name]; ok {
		a.via = name
		f(a, args, cwds)
	}
}

// shells are the shells whose -c script is read.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "lksh": true, "rbash": true,
}

// shell reads the script of a shell run with a flag cluster holding c
// (-c, -lc, -ec, …): its first operand. Without c the shell runs a file or
// its input, which cannot be read.
func (a *analyzer) shell(args []word, cwds []string, depth int) {
	c := false
	i := 0
loop:
	for ; i < len(args); i++ {
		v, ok := args[i].exactVal()
		switch {
		case !ok:
			break loop
		case v == "--" || v == "-":
			i++
			break loop
		case len(v) < 2 || v[0] != '-' && v[0] != '+':
			break loop
		case strings.HasPrefix(v, "--"):
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		for _, ch := range v[1:] {
			switch ch {
			case 'c':
				c = c || v[0] == '-'
			case 'o', 'O':
				i++ // -o option, -O shopt
			}
		}
	}
	if !c || i >= len(args) {
		return
	}
	if script, ok := args[i].exactVal(); ok {
		a.script(script, cwds, depth+1)
	}
}

// wrapperSpec describes a command that runs another one.
type wrapperSpec struct {
	optSpec
	assigns bool     // NAME=VALUE words may precede the command
	skip    int      // operands before the command (timeout's duration)
	chdir   []string // options whose argument is the command's directory
	stopOn  []string // options with which no command runs
}

var wrappers = map[string]wrapperSpec{
	"env": {optSpec: optSpec{arg: "uCS", long: []string{"unset", "chdir", "split-string"}},
		assigns: true, chdir: []string{"C", "chdir"}},
	"sudo": {optSpec: optSpec{arg: "ugCDprtUTR", long: []string{"user", "group", "close-from", "chdir",
		"prompt", "role", "type", "other-user", "command-timeout", "chroot", "host"}},
		assigns: true, chdir: []string{"D", "chdir"}, stopOn: []string{"l", "list", "v", "validate", "k", "K"}},
	"doas":     {optSpec: optSpec{arg: "uC"}},
	"nice":     {optSpec: optSpec{arg: "n", long: []string{"adjustment"}}},
	"nohup":    {},
	"setsid":   {},
	"unbuffer": {},
	"builtin":  {},
	"busybox":  {},
	"stdbuf":   {optSpec: optSpec{arg: "ioe", long: []string{"input", "output", "error"}}},
	"timeout":  {optSpec: optSpec{arg: "sk", long: []string{"signal", "kill-after"}}, skip: 1},
	"time":     {optSpec: optSpec{arg: "fo", long: []string{"format", "output"}}},
	"ionice": {optSpec: optSpec{arg: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}},
		stopOn: []string{"p", "P", "u", "pid", "pgid", "uid"}},
	"chrt": {optSpec: optSpec{arg: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}},
		skip: 1, stopOn: []string{"p", "pid"}},
	"taskset": {skip: 1, stopOn: []string{"p", "pid"}},
	"flock": {optSpec: optSpec{arg: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}},
		skip: 1},
	"command": {stopOn: []string{"v", "V"}},
	"exec":    {optSpec: optSpec{arg: "a"}},
}

// wrapper looks through a wrapper to the command it runs.
func (a *analyzer) wrapper(name string, spec wrapperSpec, args []word, cwds []string, depth int) {
	opts, rest := parseOpts(args, spec.optSpec, true)
	if hasOpt(opts, spec.stopOn...) {
		return
	}
	switch name {
	case "sudo":
		if hasOpt(opts, "e", "edit") {
			a.via = "sudo -e"
			a.writeAll(rest, false, cwds)
			return
		}
	case "time":
		a.via = "time -o"
		a.writeAll(optArgs(opts, "o", "output"), false, cwds)
	case "env":
		for _, s := range optArgs(opts, "S", "split-string") {
			if v, ok := s.exactVal(); ok {
				var split []word
				for _, f := range strings.Fields(v) {
					split = append(split, exactWord(f))
				}
				rest = append(split, rest...)
			}
		}
	}
	if dirs := optArgs(opts, spec.chdir...); len(dirs) > 0 {
		v, ok := dirs[len(dirs)-1].exactVal()
		if !ok {
			return // the command runs in a directory not known
		}
		var next []string
		for _, cwd := range cwdsFor(v, cwds) {
			next = append(next, filepath.Join(cwd, v))
		}
		cwds = next
	}
	for spec.assigns && len(rest) > 0 && isAssign(rest[0]) {
		rest = rest[1:]
	}
	if len(rest) < spec.skip {
		return
	}
	if name == "flock" {
		// flock [options] FILE [options] COMMAND | -c SCRIPT
		a.via = "flock"
		if a.write(rest[0], false, cwds) {
			return
		}
		more, cmd := parseOpts(rest[1:], spec.optSpec, true)
		for _, c := range optArgs(append(opts, more...), "c", "command") {
			if v, ok := c.exactVal(); ok {
				a.script(v, cwds, depth+1)
			}
		}
		a.command(cmd, cwds, depth+1)
		return
	}
	a.command(rest[spec.skip:], cwds, depth+1)
}

// isAssign reports whether w is NAME=VALUE.
func isAssign(w word) bool {
	s := w.val
	if w.kind != wordExact {
		s = w.pat
	}
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// xargs reads the command xargs runs with the arguments written after it;
// those it reads from its input are unknown.
func (a *analyzer) xargs(args []word, cwds []string, depth int) {
	spec := optSpec{arg: "adEILnPs", optional: "iel", long: []string{"arg-file", "delimiter",
		"max-args", "max-procs", "max-chars", "process-slot-var"}}
	opts, cmd := parseOpts(args, spec, true)
	if len(cmd) == 0 {
		return // echo
	}
	repl := ""
	for _, o := range opts {
		switch o.name {
		case "I", "i", "replace":
			repl = "{}"
			if v, ok := o.arg.exactVal(); ok && v != "" {
				repl = v
			}
		}
	}
	cmd = slices.Clone(cmd)
	if repl == "" {
		cmd = append(cmd, unknownWord)
	}
	for i, w := range cmd {
		if repl != "" && strings.Contains(w.val+w.pat, repl) {
			cmd[i] = unknownWord
		}
	}
	a.command(cmd, cwds, depth+1)
}

// find reads find's actions: -delete, and -exec or -ok of a writer, write
// the start points and everything under them; -fprint and its kin write
// their file; an -exec command is read with {} unknown.
func (a *analyzer) find(args []word, cwds []string, depth int) {
	i := 0
	for ; i < len(args); i++ {
		v, ok := args[i].exactVal()
		if !ok || !(v == "-H" || v == "-L" || v == "-P" || v == "-D" || strings.HasPrefix(v, "-O")) {
			break
		}
		if v == "-D" {
			i++
		}
	}
	var starts []word
	for ; i < len(args); i++ {
		v, ok := args[i].exactVal()
		if ok && (len(v) > 1 && v[0] == '-' || v == "(" || v == "!" || v == ")" || v == ",") {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []word{exactWord(".")}
	}
	expr := args[i:]
	var tree []string
	for j := 0; j < len(expr) && a.found == nil; j++ {
		switch v := expr[j].val; v {
		case "-delete":
			tree = append(tree, "find -delete")
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if j+1 < len(expr) {
				a.via = "find " + v
				a.write(expr[j+1], false, cwds)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			k := j + 1
			for k < len(expr) && expr[k].val != ";" && expr[k].val != "+" {
				k++
			}
			cmd := slices.Clone(expr[j+1 : k])
			for n, w := range cmd {
				if strings.Contains(w.val+w.pat, "{}") {
					cmd[n] = unknownWord
				}
			}
			if len(cmd) > 0 {
				if name, ok := cmd[0].exactVal(); ok && writers[filepath.Base(name)] != nil {
					tree = append(tree, "find "+v+" "+filepath.Base(name))
				}
				a.command(cmd, cwds, depth+1)
			}
			j = k
		}
	}
	for _, via := range tree {
		a.via = via
		if a.writeAll(starts, true, cwds) {
			return
		}
	}
}
