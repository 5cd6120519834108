package protect

import (
	"path/filepath"
	"slices"
	"strings"
)

// optSpec is what a command's option parser needs to know.
type optSpec struct {
	arg      string   // short options that take an argument
	optional string   // short options whose argument, if any, is attached
	long     []string // long options that take the next word unless written with "="
	// operand, when set, says which words starting with "-" are operands
	// (chmod's -w).
	operand func(string) bool
}

// opt is one parsed option: "r" for -r, "recursive" for --recursive.
type opt struct {
	name string
	arg  word
}

// parseOpts splits args into options and operands as GNU getopt does:
// options may follow operands, "--" ends them. With stop, the first
// operand ends them and it and everything after are the operands (a
// wrapper's command). A word that is not known is an operand, unless its
// known beginning is "-" (an option whose name is not known).
func parseOpts(args []word, spec optSpec, stop bool) (opts []opt, operands []word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		v, exact := w.exactVal()
		isOperand := exact && (len(v) < 2 || v[0] != '-' || spec.operand != nil && spec.operand(v))
		if !exact && !(strings.HasPrefix(w.pat, "-") && !stop) {
			isOperand = true
		}
		switch {
		case isOperand && stop:
			return opts, append(operands, args[i:]...)
		case isOperand:
			operands = append(operands, w)
		case !exact:
			// an option not known
		case v == "--":
			return opts, append(operands, args[i+1:]...)
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v[2:], "=")
			o := opt{name: name}
			if has {
				o.arg = exactWord(val)
			} else if slices.Contains(spec.long, name) && i+1 < len(args) {
				i++
				o.arg = args[i]
			}
			opts = append(opts, o)
		default:
			for j := 1; j < len(v); j++ {
				c := v[j : j+1]
				if strings.Contains(spec.optional, c) {
					opts = append(opts, opt{name: c, arg: exactWord(v[j+1:])})
					break
				}
				if strings.Contains(spec.arg, c) {
					o := opt{name: c}
					if j+1 < len(v) {
						o.arg = exactWord(v[j+1:])
					} else if i+1 < len(args) {
						i++
						o.arg = args[i]
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, opt{name: c})
			}
		}
	}
	return opts, operands
}

func hasOpt(opts []opt, names ...string) bool {
	return slices.ContainsFunc(opts, func(o opt) bool { return slices.Contains(names, o.name) })
}

func optArgs(opts []opt, names ...string) []word {
	var out []word
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			out = append(out, o.arg)
		}
	}
	return out
}

// writeAll writes every word of ws; it reports whether one is protected.
func (a *analyzer) writeAll(ws []word, tree bool, cwds []string) bool {
	for _, w := range ws {
		if a.write(w, tree, cwds) {
			return true
		}
	}
	return false
}

// writer reads the arguments of a command known to write.
type writer func(a *analyzer, args []word, cwds []string)

// operands returns a writer that writes the operands of a command.
func operands(spec optSpec, tree bool) writer {
	return func(a *analyzer, args []word, cwds []string) {
		_, ops := parseOpts(args, spec, false)
		a.writeAll(ops, tree, cwds)
	}
}

var copyLong = []string{"target-directory", "suffix"}

var writers map[string]writer

func init() {
	writers = map[string]writer{
		"rm":       operands(optSpec{}, true),
		"rmdir":    operands(optSpec{}, false),
		"unlink":   operands(optSpec{}, false),
		"shred":    operands(optSpec{arg: "ns", long: []string{"iterations", "size", "random-source"}}, false),
		"tee":      operands(optSpec{}, false),
		"touch":    operands(optSpec{arg: "dtr", long: []string{"date", "reference", "time"}}, false),
		"mkdir":    operands(optSpec{arg: "m", long: []string{"mode"}}, false),
		"truncate": operands(optSpec{arg: "sr", long: []string{"size", "reference"}}, false),
		"sudoedit": operands(optSpec{arg: "ugCDprtUTR"}, false),
		"mv":       dest(optSpec{arg: "tS", long: copyLong}, true),
		"cp":       dest(optSpec{arg: "tS", long: copyLong}, false),
		"install": dest(optSpec{arg: "tSmog", long: append([]string{"mode", "owner", "group", "strip-program"},
			copyLong...)}, false),
		"ln":    dest(optSpec{arg: "tS", long: copyLong}, false),
		"rsync": rsync,
		"chmod": modeFirst(optSpec{operand: func(s string) bool {
			return !strings.HasPrefix(s, "--") && strings.Trim(s[1:], "cfvR") != ""
		}}),
		"chown": modeFirst(optSpec{long: []string{"from", "reference"}}),
		"chgrp": modeFirst(optSpec{long: []string{"from", "reference"}}),
		"sed":   sed,
		"dd":    dd,
		"curl": outputs(optSpec{arg: "dHXuAeFTwxbcDKmryYzEQtUCoP", long: []string{"output", "dump-header",
			"cookie-jar", "output-dir", "trace", "trace-ascii", "stderr", "libcurl"}},
			[]string{"o", "output", "D", "dump-header", "c", "cookie-jar", "trace", "trace-ascii", "stderr", "libcurl"},
			[]string{"output-dir"}),
		"wget": outputs(optSpec{arg: "OoaPeUtTwQlARDIXiB", long: []string{"output-document", "output-file",
			"append-output", "directory-prefix"}},
			[]string{"O", "output-document", "o", "output-file", "a", "append-output"},
			[]string{"P", "directory-prefix"}),
	}
}

// dest returns the writer of cp, mv, install and ln: the destination, and
// DEST/base(SOURCE) for each source unless -T; with -t DIR, DIR/base(SOURCE).
// movesSources also writes the sources and what they contain (mv).
func dest(spec optSpec, movesSources bool) writer {
	return func(a *analyzer, args []word, cwds []string) {
		opts, ops := parseOpts(args, spec, false)
		if a.via == "install" && hasOpt(opts, "d", "directory") {
			a.writeAll(ops, false, cwds)
			return
		}
		var to word
		srcs := ops
		switch t := optArgs(opts, "t", "target-directory"); {
		case len(t) > 0:
			to = t[len(t)-1]
		case a.via == "ln" && len(ops) == 1:
			to = exactWord(".") // a link named after the target, here
		case len(ops) < 2:
			return
		default:
			to, srcs = ops[len(ops)-1], ops[:len(ops)-1]
			if a.write(to, false, cwds) {
				return
			}
		}
		if movesSources && a.writeAll(srcs, true, cwds) {
			return
		}
		if hasOpt(opts, "T", "no-target-directory") {
			return
		}
		for _, s := range srcs {
			if a.write(joinWord(to, s), false, cwds) {
				return
			}
		}
	}
}

// joinWord returns the word for dir/base(src).
func joinWord(dir, src word) word {
	if dir.kind == wordOpen {
		return dir
	}
	dirPat := dir.pat
	if dir.kind == wordExact {
		dirPat = escapeMeta(dir.val)
	}
	switch src.kind {
	case wordExact:
		if src.val == "" {
			return unknownWord
		}
		b := filepath.Base(src.val)
		if dir.kind == wordExact {
			return exactWord(dir.val + "/" + b)
		}
		return word{kind: wordGlob, val: dir.val + "/" + b, pat: dirPat + "/" + escapeMeta(b)}
	case wordGlob:
		return word{kind: wordGlob, val: dir.val + "/" + filepath.Base(src.val), pat: dirPat + "/" + filepath.Base(src.pat)}
	}
	return word{kind: wordOpen, pat: dirPat + "/"}
}

// modeFirst returns the writer of chmod, chown and chgrp: the operands
// after the first (the mode or owner), all of them with --reference.
func modeFirst(spec optSpec) writer {
	return func(a *analyzer, args []word, cwds []string) {
		opts, ops := parseOpts(args, spec, false)
		if !hasOpt(opts, "reference") {
			if len(ops) == 0 {
				return
			}
			ops = ops[1:]
		}
		a.writeAll(ops, hasOpt(opts, "R", "recursive"), cwds)
	}
}

// outputs returns the writer of a command that writes the files its
// options name (files) or files in the directories they name (dirs).
func outputs(spec optSpec, files, dirs []string) writer {
	return func(a *analyzer, args []word, cwds []string) {
		opts, _ := parseOpts(args, spec, false)
		if a.writeAll(optArgs(opts, files...), false, cwds) {
			return
		}
		for _, d := range optArgs(opts, dirs...) {
			if a.write(joinWord(d, unknownWord), false, cwds) {
				return
			}
		}
	}
}

// rsync writes its destination, everything under it with --delete, and
// its sources with --remove-source-files. A remote destination is not
// checked.
func rsync(a *analyzer, args []word, cwds []string) {
	opts, ops := parseOpts(args, optSpec{arg: "eTfB", long: []string{"rsh", "exclude", "include",
		"filter", "exclude-from", "include-from", "files-from", "temp-dir", "partial-dir", "log-file",
		"password-file", "compare-dest", "copy-dest", "link-dest", "backup-dir", "suffix", "chmod",
		"chown", "block-size", "max-size", "min-size", "timeout", "port", "out-format", "bwlimit",
		"rsync-path", "address"}}, false)
	if len(ops) < 2 {
		return
	}
	to, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	if host, _, ok := strings.Cut(to.val+to.pat, ":"); ok && !strings.Contains(host, "/") {
		return
	}
	del := slices.ContainsFunc(opts, func(o opt) bool { return strings.HasPrefix(o.name, "delete") })
	if a.write(to, del, cwds) {
		return
	}
	if hasOpt(opts, "remove-source-files") && a.writeAll(srcs, false, cwds) {
		return
	}
	for _, s := range srcs {
		if a.write(joinWord(to, s), false, cwds) {
			return
		}
	}
}

// sed writes its file operands when -i or --in-place is given. A short
// cluster ends at i (whose suffix is the rest), e, f or l (which take an
// argument).
func sed(a *analyzer, args []word, cwds []string) {
	inPlace, script := false, false
	var ops []word
	for i := 0; i < len(args); i++ {
		v, ok := args[i].exactVal()
		switch {
		case !ok || len(v) < 2 || v[0] != '-':
			ops = append(ops, args[i])
		case v == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(v, "--"):
			name, _, has := strings.Cut(v[2:], "=")
			switch name {
			case "in-place":
				inPlace = true
			case "expression", "file":
				script = true
				fallthrough
			case "line-length":
				if !has {
					i++
				}
			}
		default:
		cluster:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'i':
					inPlace = true
					break cluster
				case 'e', 'f', 'l':
					script = script || v[j] != 'l'
					if j+1 == len(v) {
						i++
					}
					break cluster
				}
			}
		}
	}
	if !inPlace {
		return
	}
	if !script && len(ops) > 0 {
		ops = ops[1:]
	}
	a.via = "sed -i"
	a.writeAll(ops, false, cwds)
}

// dd writes the file of its of= operand.
func dd(a *analyzer, args []word, cwds []string) {
	for _, w := range args {
		switch {
		case w.kind == wordExact && strings.HasPrefix(w.val, "of="):
			w.val = w.val[3:]
		case w.kind != wordExact && strings.HasPrefix(w.pat, "of="):
			w.pat = w.pat[3:]
			w.val = strings.TrimPrefix(w.val, "of=")
		default:
			continue
		}
		a.via = "dd of="
		if a.write(w, false, cwds) {
			return
		}
	}
}
