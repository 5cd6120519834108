package protect

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hookState is what the on-shell hooks need to know besides the commands
// read.
type hookState struct {
	// unknown says why a command the step runs cannot be known, "" when
	// every one can: a command named by an expansion, an eval, trap or
	// shell script that is not literal, a shell reading its script from an
	// input whose text is not known.
	unknown string
	// stdin is the standard input of the command being read.
	stdin input
	// files maps a process substitution <(…), as written, to its output.
	files map[string]input
}

// input is what a command reads from a descriptor.
type input struct {
	set   bool   // there is something to read (not nothing, as a step's own input)
	file  bool   // a file, read when the command runs (not read here)
	known bool   // text is all of it
	text  string // what is read, when known
	what  string // where it comes from, as written, for messages
	// pipe, when set, is the command whose output this is, given pipeIn:
	// worked out (resolve) only when a shell reads it.
	pipe   *syntax.Stmt
	pipeIn *input
}

// maxInput bounds the text of an input read as a script.
const maxInput = 1 << 20

// cannotKnow records, once, why a command the step runs cannot be known.
func (a *analyzer) cannotKnow(format string, args ...any) {
	if a.hook.unknown == "" {
		a.hook.unknown = fmt.Sprintf(format, args...)
	}
}

// shownWords is words as messages show them.
func shownWords(words []word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.shown()
	}
	return strings.Join(parts, " ")
}

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
	if !ok {
		a.cannotKnow("%q, whose command name %s is not known before it runs", shownWords(words), words[0].shown())
		return
	}
	if name == "" {
		return
	}
	name = filepath.Base(name)
	args := words[1:]
	if arches[name] {
		a.setarch(name, args, cwds, depth)
		return
	}
	if spec, ok := wrappers[name]; ok {
		a.wrapper(name, spec, args, cwds, depth)
		return
	}
	if runners[name] {
		a.runner(name, args, cwds, depth)
		return
	}
	if shells[name] {
		a.shell(name, args, cwds, depth)
		return
	}
	switch name {
	case "eval":
		var parts []string
		for _, w := range args {
			v, ok := w.exactVal()
			if !ok {
				a.cannotKnow("%q, an eval of a string not known before it runs", shownWords(words))
				return
			}
			parts = append(parts, v)
		}
		a.script(strings.Join(parts, " "), cwds, depth+1)
	case "trap":
		a.trap(args, cwds, depth)
	case ".", "source":
		if len(args) > 0 && args[0].val == "--" && args[0].kind == wordExact {
			args = args[1:]
		}
		if len(args) > 0 {
			a.file(shownWords(words), args[0], cwds, depth)
		}
	case "alias":
		// bash expands an alias only with expand_aliases, sh always.
		if slices.ContainsFunc(args, func(w word) bool { return strings.Contains(w.val+w.pat, "=") }) {
			a.cannotKnow("%q, an alias, whose words run under another name", shownWords(words))
		}
	case "hash":
		if opts, _ := parseOpts(args, optSpec{arg: "p"}, false); hasOpt(opts, "p") {
			a.cannotKnow("%q, which makes a name run another file", shownWords(words))
		}
	case "enable":
		if opts, _ := parseOpts(args, optSpec{arg: "f"}, false); hasOpt(opts, "f") {
			a.cannotKnow("%q, which loads a builtin from a shared object", shownWords(words))
		}
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

// shell reads the script of a shell: with a flag cluster holding c (-c,
// -lc, -ec, …), its first operand; else the file its first operand names,
// read when it is a process substitution or standard input; else, or with
// s, its standard input.
func (a *analyzer) shell(name string, args []word, cwds []string, depth int) {
	c, s := false, false
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
			case 's':
				s = s || v[0] == '-'
			case 'o', 'O':
				i++ // -o option, -O shopt
			}
		}
	}
	what := shownWords(append([]word{exactWord(name)}, args...))
	switch {
	case c && i >= len(args):
	case c:
		if script, ok := args[i].exactVal(); ok {
			a.script(script, cwds, depth+1)
		} else {
			a.cannotKnow("%q, a shell running a script not known before it runs", what)
		}
	case !s && i < len(args):
		a.file(what, args[i], cwds, depth)
	default:
		a.input(what, a.hook.stdin, cwds, depth)
	}
}

// file reads the script a shell or source runs from the file w names:
// the output of a process substitution, or standard input. Another file
// is not read: it holds what it holds when the step runs.
func (a *analyzer) file(what string, w word, cwds []string, depth int) {
	if in, ok := a.hook.files[w.text]; ok && w.kind == wordOpen && w.text != "" {
		a.input(what, in, cwds, depth)
		return
	}
	switch w.val {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		if w.kind == wordExact {
			a.input(what, a.hook.stdin, cwds, depth)
		}
	}
}

// input reads in as the script of what: nothing when there is nothing to
// read or it is a file; the script when its text is known; otherwise what
// runs cannot be known.
func (a *analyzer) input(what string, in input, cwds []string, depth int) {
	in = a.resolve(in)
	switch {
	case !in.set || in.file:
	case in.known:
		a.hook.stdin = input{} // the script consumes it
		a.script(in.text, cwds, depth+1)
	default:
		a.cannotKnow("%q, a shell reading its script from %s, whose text is not known before it runs", what, in.what)
	}
}

// trap reads the command of trap ARG SIGNAL… as a script.
func (a *analyzer) trap(args []word, cwds []string, depth int) {
	for len(args) > 0 {
		v, ok := args[0].exactVal()
		if !ok || len(v) < 2 || v[0] != '-' {
			break
		}
		args = args[1:]
		if v == "--" {
			break
		}
		if strings.ContainsAny(v[1:], "lpP") {
			return // lists traps or signals
		}
	}
	if len(args) == 0 {
		return
	}
	if v, ok := args[0].exactVal(); ok {
		a.script(v, cwds, depth+1)
		return
	}
	a.cannotKnow("%q, a trap whose command is not known before it runs", shownWords(append([]word{exactWord("trap")}, args...)))
}

// wrapperSpec describes a command that runs another one.
type wrapperSpec struct {
	optSpec
	assigns bool     // NAME=VALUE words may precede the command
	skip    int      // operands before the command (timeout's duration)
	chdir   []string // options whose argument is the command's directory
	stopOn  []string // options with which no command runs
	shell   bool     // without a command it runs a shell reading its input
}

var wrappers = map[string]wrapperSpec{
	"env": {optSpec: optSpec{arg: "uCS", long: []string{"unset", "chdir", "split-string"}},
		assigns: true, chdir: []string{"C", "chdir"}},
	"sudo": {optSpec: optSpec{arg: "ugCDprtUTR", long: []string{"user", "group", "close-from", "chdir",
		"prompt", "role", "type", "other-user", "command-timeout", "chroot", "host"}},
		assigns: true, chdir: []string{"D", "chdir"}, stopOn: []string{"l", "list", "v", "validate", "k", "K"}, shell: true},
	"doas":     {optSpec: optSpec{arg: "uC"}, shell: true},
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
	"setpriv": {optSpec: optSpec{long: []string{"ambient-caps", "inh-caps", "bounding-set", "groups", "rgid", "egid",
		"regid", "ruid", "euid", "reuid", "securebits", "pdeathsig", "selinux-label", "apparmor-profile",
		"landlock-access", "landlock-rule", "seccomp-filter"}},
		stopOn: []string{"d", "dump", "h", "help", "V", "version"}},
	"prlimit": {optSpec: optSpec{arg: "op", optional: "acdefilmnqrstuvxy", long: []string{"output", "pid"}},
		stopOn: []string{"p", "pid", "h", "help", "V", "version"}},
	"unshare": {optSpec: optSpec{arg: "RwSG", long: []string{"propagation", "setgroups", "map-user", "map-group",
		"map-users", "map-groups", "root", "wd", "setuid", "setgid", "monotonic", "boottime", "load-interp"}},
		chdir: []string{"w", "wd"}, shell: true, stopOn: []string{"h", "help", "V", "version"}},
	"strace": {optSpec: optSpec{arg: "abeEIoOpPsSuUX", long: []string{"output", "trace", "trace-path", "signal", "status",
		"string-limit", "user", "env", "attach", "summary-sort-by", "columns", "const-print-style", "abbrev", "verbose",
		"raw", "read", "write", "fault", "inject", "kvm"}},
		stopOn: []string{"h", "help", "V", "version"}},
	"script": {optSpec: optSpec{arg: "cEIOBTmo", optional: "t", long: []string{"command", "echo", "log-in", "log-out",
		"log-io", "log-timing", "logging-format", "output-limit"}}, shell: true},
	"su": {optSpec: optSpec{arg: "cgGsw", long: []string{"command", "session-command", "group", "supp-group",
		"shell", "whitelist-environment"}}, shell: true},
	"runuser": {optSpec: optSpec{arg: "cgGswu", long: []string{"command", "session-command", "group", "supp-group",
		"shell", "whitelist-environment", "user"}}, shell: true},
	"chroot": {optSpec: optSpec{long: []string{"groups", "userspec"}}, skip: 1, shell: true,
		stopOn: []string{"help", "version"}},
	"nsenter": {optSpec: optSpec{arg: "tSGW", optional: "muinpCUTrw", long: []string{"target", "setuid", "setgid", "wdns"}},
		shell: true, stopOn: []string{"h", "help", "V", "version"}},
	"fakeroot": {optSpec: optSpec{arg: "lfisb", long: []string{"lib", "faked", "fd-base"}},
		shell: true, stopOn: []string{"h", "help", "v", "version"}},
	"valgrind":  {stopOn: []string{"h", "help", "help-debug", "help-dyn-options", "version"}},
	"catchsegv": {},
	"numactl": {optSpec: optSpec{arg: "ipmNCPwSfMILo", long: []string{"interleave", "preferred", "membind",
		"cpunodebind", "physcpubind", "preferred-many", "weighted-interleave", "shm", "file", "shmmode",
		"shmid", "length", "offset"}}, stopOn: []string{"s", "show", "H", "hardware", "h", "help", "V", "version"}},
	"ltrace": {optSpec: optSpec{arg: "aADeFlnopsuwx", long: []string{"align", "config", "indent", "library", "output"}},
		stopOn: []string{"p", "h", "help", "V", "version"}},
	"firejail": {shell: true, stopOn: []string{"help", "version"}},
	"systemd-run": {optSpec: optSpec{arg: "upMHEC", long: []string{"unit", "property", "machine", "host", "setenv",
		"description", "slice", "uid", "gid", "nice", "working-directory", "service-type", "path-property",
		"socket-property", "timer-property", "on-active", "on-boot", "on-startup", "on-unit-active",
		"on-unit-inactive", "on-calendar", "capsule", "json"}},
		shell: true, stopOn: []string{"h", "help", "version"}},
}

// runners are commands that run a command written after them in a
// syntax of their own (runner).
var runners = map[string]bool{"watch": true, "capsh": true, "gdb": true, "mapfile": true, "readarray": true}

// runner reads the command one of runners runs:
//   - watch [OPTIONS] COMMAND…: its words joined by spaces, run by sh -c;
//     with -x (--exec), the command itself;
//   - capsh [OPTIONS] -- ARGS…: bash (its --shell) with ARGS;
//   - gdb [OPTIONS] --args PROGRAM ARGS…: the program;
//   - mapfile and readarray -C CALLBACK: the callback, evaluated with an
//     index and a line after it.
func (a *analyzer) runner(name string, args []word, cwds []string, depth int) {
	switch name {
	case "watch":
		opts, rest := parseOpts(args, optSpec{arg: "nq", optional: "d", long: []string{"interval", "equexit"}}, true)
		if len(rest) == 0 || hasOpt(opts, "h", "help", "v", "version") {
			return
		}
		if hasOpt(opts, "x", "exec") {
			a.command(rest, cwds, depth+1)
			return
		}
		parts := make([]string, len(rest))
		for i, w := range rest {
			v, ok := w.exactVal()
			if !ok {
				a.cannotKnow("%q, a watch whose command is not known before it runs", shownWords(append([]word{exactWord("watch")}, args...)))
				return
			}
			parts[i] = v
		}
		a.script(strings.Join(parts, " "), cwds, depth+1)
	case "capsh":
		sh := "bash"
		for i, w := range args {
			v, ok := w.exactVal()
			switch {
			case !ok:
				return // an option not known: capsh fails or does it
			case strings.HasPrefix(v, "--shell="):
				sh = filepath.Base(v[len("--shell="):])
			case v == "--":
				if shells[sh] {
					a.shell(sh, args[i+1:], cwds, depth+1)
				} else {
					a.command(append([]word{exactWord(sh)}, args[i+1:]...), cwds, depth+1)
				}
				return
			}
		}
	case "gdb":
		for i, w := range args {
			if v, ok := w.exactVal(); ok && (v == "--args" || v == "-args") {
				a.command(args[i+1:], cwds, depth+1)
				return
			}
		}
	case "mapfile", "readarray":
		opts, _ := parseOpts(args, optSpec{arg: "dnOsuCc"}, false)
		for _, cb := range optArgs(opts, "C") {
			v, ok := cb.exactVal()
			if !ok {
				a.cannotKnow("%q, a %s callback not known before it runs", shownWords(append([]word{exactWord(name)}, args...)), name)
				return
			}
			a.script(v+` 0 "$line"`, cwds, depth+1) // bash appends the index and the line
		}
	}
}

// arches are setarch and the names it is installed under, which set the
// architecture their name says and take no architecture operand.
var arches = map[string]bool{
	"setarch": true, "linux32": true, "linux64": true, "uname26": true, "i386": true, "i486": true, "i586": true,
	"i686": true, "athlon": true, "x86_64": true, "ia64": true, "ppc": true, "ppc32": true, "ppc64": true,
	"ppc64le": true, "s390": true, "s390x": true, "sparc": true, "sparc32": true, "sparc32bash": true,
	"sparc64": true, "mips": true, "mips32": true, "mips64": true, "parisc": true, "parisc32": true,
	"parisc64": true, "arm": true, "armv7l": true, "armh": true, "aarch64": true, "arm64": true,
}

// setarch reads setarch ARCH [OPTIONS] [COMMAND…], and ALIAS [OPTIONS]
// [COMMAND…] for the names it is installed under: without a command it
// runs a shell reading its input.
func (a *analyzer) setarch(name string, args []word, cwds []string, depth int) {
	if name == "setarch" && len(args) > 0 {
		if v, ok := args[0].exactVal(); !ok || !strings.HasPrefix(v, "-") {
			args = args[1:] // the architecture
		}
	}
	opts, rest := parseOpts(args, optSpec{}, true)
	if hasOpt(opts, "list", "h", "help", "V", "version") {
		return
	}
	if len(rest) == 0 {
		a.shell("sh", nil, cwds, depth+1)
		return
	}
	a.command(rest, cwds, depth+1)
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
	case "strace":
		a.via = "strace -o"
		a.writeAll(optArgs(opts, "o", "output"), false, cwds)
	case "env":
		a.env(args, cwds, depth)
		return
	case "script":
		opts, rest = parseOpts(args, spec.optSpec, false) // options may follow the file
		a.via = "script"
		a.writeAll(append(optArgs(opts, "O", "log-out", "B", "log-io", "I", "log-in", "T", "log-timing"), rest...), false, cwds)
		if scripts := optArgs(opts, "c", "command"); len(scripts) > 0 {
			a.scripts("script", scripts, cwds, depth)
		} else {
			a.shell("sh", nil, cwds, depth+1)
		}
		return
	case "su", "runuser":
		a.su(name, args, spec, cwds, depth)
		return
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
	for spec.assigns && len(rest) > 0 && envAssign(rest[0]) {
		a.assignWord(rest[0], cwds, depth)
		rest = rest[1:]
	}
	if len(rest) < spec.skip {
		return
	}
	if len(rest) == spec.skip && spec.shell { // chroot DIR runs a shell too
		a.shell("sh", nil, cwds, depth+1)
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

// scripts reads each word of scripts as a shell script that what runs.
func (a *analyzer) scripts(what string, scripts []word, cwds []string, depth int) {
	for _, w := range scripts {
		if v, ok := w.exactVal(); ok {
			a.script(v, cwds, depth+1)
		} else {
			a.cannotKnow("%q, %s running a script not known before it runs", what+" -c "+w.shown(), what)
		}
	}
}

// su reads su and runuser: their options may follow the user; -c,
// --command and --session-command are scripts; the words after the user
// are the user's shell's arguments (su root -- -c 'rm x'), but runuser's
// with -u are a command. Without either the shell reads its input.
func (a *analyzer) su(name string, args []word, spec wrapperSpec, cwds []string, depth int) {
	opts, rest := parseOpts(args, spec.optSpec, false)
	if hasOpt(opts, "h", "help", "V", "version") {
		return
	}
	scripts := optArgs(opts, "c", "command", "session-command")
	a.scripts(name, scripts, cwds, depth)
	if hasOpt(opts, "u", "user") {
		a.command(rest, cwds, depth+1)
		return
	}
	if len(rest) > 0 && rest[0].kind == wordExact && rest[0].val == "-" {
		rest = rest[1:]
	}
	if len(rest) > 0 {
		rest = rest[1:] // the user
	}
	if len(scripts) == 0 || len(rest) > 0 {
		a.shell("sh", rest, cwds, depth+1)
	}
}

// envLong are env's long options, which may be shortened to any prefix
// that names one alone (GNU getopt_long); those of envLongArg take an
// argument.
var (
	envLong = []string{"ignore-environment", "null", "unset", "chdir", "split-string", "block-signal",
		"default-signal", "ignore-signal", "list-signal-handling", "debug", "help", "version", "argv0"}
	envLongArg = []string{"unset", "chdir", "split-string", "argv0"}
)

// env reads env [OPTION]… [NAME=VALUE]… [COMMAND [ARG]…] as GNU env does:
// its options end at the first word that is none; -S STRING (--split-string,
// attached or not) splits STRING into words (envSplit) that take its
// place, options parsed again; -C DIR moves the command to DIR.
func (a *analyzer) env(args []word, cwds []string, depth int) {
	var dir *word
	fail := func(why string) {
		a.cannotKnow("%q, where %s", shownWords(append([]word{exactWord("env")}, args...)), why)
	}
	i := 0
	var split *word
	var splitRest []word
scan:
	for ; i < len(args); i++ {
		v, ok := args[i].exactVal()
		switch {
		case !ok && strings.HasPrefix(args[i].pat, "-"):
			fail(fmt.Sprintf("the option %s is not known before it runs", args[i].shown()))
			return
		case ok && v == "-":
			i++ // -i, and the end of the options
			break scan
		case !ok || len(v) < 2 || v[0] != '-':
			break scan
		case v == "--":
			i++
			break scan
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v[2:], "=")
			full := ""
			for _, l := range envLong {
				if l == name {
					full = l
					break
				}
				if strings.HasPrefix(l, name) {
					if full != "" {
						return // ambiguous: env fails
					}
					full = l
				}
			}
			if full == "" {
				return // unknown: env fails
			}
			if !slices.Contains(envLongArg, full) {
				continue
			}
			arg := exactWord(val)
			if !has {
				if i+1 == len(args) {
					return
				}
				i++
				arg = args[i]
			}
			switch full {
			case "chdir":
				dir = &arg
			case "split-string":
				split, splitRest = &arg, args[i+1:]
				break scan
			}
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte("iv0", c) >= 0 {
					continue
				}
				if strings.IndexByte("CSua", c) < 0 { // -a ARG0: coreutils 9.5
					return // an invalid option: env fails
				}
				arg := exactWord(v[j+1:])
				if j+1 == len(v) {
					if i+1 == len(args) {
						return
					}
					i++
					arg = args[i]
				}
				switch c {
				case 'C':
					dir = &arg
				case 'S':
					split, splitRest = &arg, args[i+1:]
					break scan
				}
				break
			}
		}
	}
	if dir != nil {
		v, ok := dir.exactVal()
		if !ok {
			return // the command runs in a directory not known
		}
		var next []string
		for _, cwd := range cwdsFor(v, cwds) {
			next = append(next, filepath.Join(cwd, v))
		}
		cwds = next
	}
	if split != nil {
		v, ok := split.exactVal()
		if !ok {
			fail(fmt.Sprintf("the -S string %s is not known before it runs", split.shown()))
			return
		}
		words, err := envSplit(v)
		if err != nil {
			fail(fmt.Sprintf("env cannot split the -S string %q: %v", v, err))
			return
		}
		a.command(append(append([]word{exactWord("env")}, words...), splitRest...), cwds, depth+1)
		return
	}
	rest := args[i:]
	for len(rest) > 0 && envAssign(rest[0]) {
		a.assignWord(rest[0], cwds, depth)
		rest = rest[1:]
	}
	a.command(rest, cwds, depth+1)
}

// envAssign reports whether w is an assignment to env or sudo, which take
// every operand with "=" before the command as one (GNU env's strchr);
// a word not known is one when its known beginning is NAME=.
func envAssign(w word) bool {
	if v, ok := w.exactVal(); ok {
		return strings.IndexByte(v, '=') > 0
	}
	return isAssign(w)
}

// envSplit splits the string of env -S into words as GNU env does:
// white space separates words outside quotes; '…' keeps all but \\ and
// \' as written; "…" and unquoted text take the escapes \" \# \$ \'
// \\ \f \n \r \t \v, and \_ (a separator, a space within "…"); \c
// ends the string outside "…"; # where a word would start ends it;
// ${NAME} outside '…' is the variable, whose value is not known here: its
// word is then open (and may be none, when it is unset). A quote starts a
// word, so ” is an empty word.
func envSplit(s string) ([]word, error) {
	var words []word
	var cur, pat, text strings.Builder
	open, in, sep := false, false, true
	sq, dq := false, false
	end := func() {
		if in {
			if open {
				words = append(words, word{kind: wordOpen, pat: pat.String(), text: text.String()})
			} else {
				words = append(words, exactWord(cur.String()))
			}
		}
		cur.Reset()
		pat.Reset()
		text.Reset()
		open, in = false, false
	}
	start := func() {
		if sep {
			end()
			in, sep = true, false
		}
	}
	eos := false
loop:
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			if dq {
				break
			}
			sq = !sq
			start() // a quote starts a word: '' is an empty one
			continue
		case '"':
			if sq {
				break
			}
			dq = !dq
			start()
			continue
		case ' ', '\t', '\n', '\v', '\f', '\r':
			if sq || dq {
				break
			}
			sep = true
			continue
		case '#':
			if sep {
				eos = true
				break loop
			}
		case '\\':
			if sq && (i+1 == len(s) || s[i+1] != '\\' && s[i+1] != '\'') {
				break
			}
			i++
			if i == len(s) {
				return nil, fmt.Errorf("invalid backslash at end of string")
			}
			switch c = s[i]; c {
			case '"', '#', '$', '\'', '\\':
			case '_':
				if !dq {
					sep = true
					continue
				}
				c = ' '
			case 'c':
				if dq {
					return nil, fmt.Errorf("'\\c' must not appear in double-quoted -S string")
				}
				eos = true
				break loop
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			default:
				return nil, fmt.Errorf("invalid sequence '\\%c'", c)
			}
		case '$':
			if sq {
				break
			}
			n := strings.IndexByte(s[i:], '}')
			if !strings.HasPrefix(s[i:], "${") || n < 0 || !isName(s[i+2:i+n]) {
				return nil, fmt.Errorf("only ${VARNAME} expansion is supported, error at: %s", s[i:])
			}
			start()
			open = true
			text.WriteString(s[i : i+n+1])
			i += n
			continue
		}
		start()
		cur.WriteByte(c)
		text.WriteByte(c)
		if !open {
			pat.WriteString(escapeMeta(string(c)))
		}
	}
	if !eos && (sq || dq) {
		return nil, fmt.Errorf("no terminating quote")
	}
	end()
	return words, nil
}

// isName reports whether s is a shell variable's name.
func isName(s string) bool {
	return s != "" && !(s[0] >= '0' && s[0] <= '9') &&
		strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}
