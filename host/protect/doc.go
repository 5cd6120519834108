// Package protect decides the runtime host's step-level refusals: the two
// checks, read_only and hooks, that every tool step and every shell step
// passes before it is dispatched (docs/manifest.md, "hooks" and
// "capabilities"); and it opens the files the built-in tools write so that
// no step racing them can redirect a write into the protected set (Set,
// OpenWrite, WriteFile; docs/security.md).
//
// In the flow of `planc run`, the VM asks the host's Refuse before a tool or
// shell step's first dispatch (vm.Host.Refuse); the host builds one Checker
// per run from the capsule manifest and calls Checker.Tool or
// Checker.Shell. A non-nil *Refusal refuses the step: the host writes the
// trace line named by Refusal.Kind (protected_path_denied or call_denied)
// and returns the Refusal as the error, whose text becomes the step's error
// in the report. Capsule steps are never put to these checks. The host
// also builds one Set per run from the same protected paths; the built-in
// write-file and notes open their files with OpenWrite against it.
//
// # Writes of the built-in tools
//
// OpenWrite resolves a tool's path beneath a trusted directory (the working
// directory, or "/" for a path outside it) and opens it in one step,
// following no symbolic link (openat2 with RESOLVE_NO_SYMLINKS and
// RESOLVE_BENEATH; O_NOFOLLOW component by component where openat2 is
// missing), then checks what it opened: the directory and every one above
// it by device and inode against the Set's protected directories, the real
// path against the Set's paths, and the file by device and inode against
// its protected files (a hard link is the same file) and, when it has more
// than one name, against the files with more than one name under the
// protected directories (looked for once, on the first such write).
// Truncation waits for the checks. A path with a symbolic link in it is refused with a
// *SymlinkError naming the link and the path it resolves to: the fix is to
// write that path.
//
// # Order of the checks
//
// Hooks are checked first, then read_only: a call a hook denies is refused
// whatever it writes, and its call_denied line names the hook. Among hooks,
// the first one in manifest order whose commit_policy is deny and whose
// match matches wins; a hook with commit_policy allow never refuses and does
// not cancel another hook's deny.
//
// # Hooks
//
// A hook's match is a glob: "*" matches any text, spaces and slashes
// included, "?" matches one character, and every other character, "[" and
// "\" included, matches itself. An absent match matches every call. An
// on-tool-call hook's match is held against the tool's name.
//
// An on-shell hook's match is held against what the step runs, not
// against the text of its command line (ShellCommands): first the step's
// words, as the runtime split them (S14), joined by single spaces, so
// " rm x", "rm<TAB>x", "'rm' x" and `r"m" x` are all "rm x"; then every
// command the read_only check reads in them, each as its words joined by
// single spaces: the command a wrapper runs (sudo, env, timeout, nice,
// xargs, find -exec, …), and every simple command of a bash -c or sh -c
// script or an eval, parsed with mvdan.cc/sh/v3/syntax, with its quotes and
// escapes removed as a shell removes them ($'\x72m' decoded as bash does);
// the command of a trap; the script a shell or source reads from a
// here-string, a here-document, a pipe from echo, printf or cat, or a
// <(…); and the words of env -S, split as GNU env splits them. So "rm *"
// matches `bash -c 'cd d && rm x'` (its command "rm x"), `sudo rm x`,
// `xargs rm`, `env -S'rm x'` and `echo 'rm x' | sh`. A command
// whose first word is a path is also held as that word's last part
// ("/bin/rm x" as "rm x"). A word whose value cannot be known before the
// script runs is held as written ("rm $f"). The rest of a script that does
// not parse is cut at ; & | ( ) { } ` and newlines, and each piece, quotes
// dropped, is held as a command. A script past the bounds of the analysis
// (below) is refused by the first denying on-shell hook, since the hook
// cannot be held against all of it; so is one that runs a command that
// cannot be known before it runs (fail closed): a command named by an
// expansion ($r x, $(echo rm) x), an eval, trap or sh -c of a string that
// is not literal, a shell reading a script from an input whose text is not
// known (curl … | sh).
//
// Not seen by hooks: what a command runs that is not written in the step
// (a script run by file name or from < FILE, make, aliases and functions
// that rename a command).
// # read_only
//
// A path is protected when it is a read_only path or lies under one,
// compared by whole components after cleaning ("src2" is not under "src",
// "src2/../src/a" is), both as written and with symbolic links followed in
// the part of the path that exists, on the read_only side as well (so a
// symlink into a protected tree, or a dangling one pointing into it, is
// caught). Relative paths resolve against the working directory.
//
// A tool step is checked when the tool is known to write: the built-in
// write-file, and every MCP tool not annotated readOnlyHint (ToolInfo). The
// strings (or lists of strings) of its input's top-level members named as
// paths are checked; see PathKeys.
//
// A shell step's argv runs without a shell (semantics S14), so its words are
// literal: a ">" word is an argument, not a redirection. The words are read
// as one command; for a shell run with a -c flag (bash -c, sh -ec, bash
// -lc, …) and for eval, the script is parsed with mvdan.cc/sh/v3/syntax
// and every command in it is read: pipelines, lists, subshells, blocks,
// command and process substitutions, here-documents, if/case/for/while
// bodies and function bodies. A command writes through a redirection (">",
// ">>", ">|", "&>", "&>>", "<>", and ">&FILE" when FILE is not a number),
// or through a well-known writer, whose options are parsed as GNU does:
//
//	rm, rmdir, unlink, shred      their operands (rm: also what they contain)
//	mv                            sources (and what they contain) and destination
//	cp, install, ln, rsync        the destination (and DEST/base(source)); -t DIR
//	tee, touch, mkdir, truncate   their file operands
//	chmod, chown, chgrp           the operands after the mode/owner (-R: recursive)
//	sed -i / --in-place           the file operands
//	dd                            of=FILE
//	curl -o/-D/-c, wget -O/-o/-P  the named output files
//	find                          -delete or -exec/-ok of a writer: the start
//	                              points, recursively; -fprint FILE
//	sudoedit, sudo -e, flock      the edited files, the lock file
//
// Wrappers are looked through to the command they run: env (assignments,
// -u, -C DIR, -S), sudo, doas, nice, nohup, setsid, stdbuf, timeout, time,
// ionice, chrt, taskset, flock, command, exec, builtin, busybox, setpriv,
// prlimit, setarch and its aliases (linux64, i386, …), unshare, strace,
// script -c, su -c, runuser, chroot, nsenter, fakeroot, valgrind,
// catchsegv, numactl, ltrace, systemd-run, firejail; watch, capsh --,
// gdb --args and mapfile -C in their own syntax (runner); and xargs
// (whose own arguments are read; those it reads from its input cannot be
// known, so only paths written literally count). The code a shell runs
// from a variable the step sets (PROMPT_COMMAND, the substitutions of PS0,
// PS1, PS2 and PS4, BASH_FUNC_NAME%% functions) is read as a script
// (codevars.go). A removal or move of a
// directory that contains a read-only path (rm -r ., mv .. /x) counts as
// writing under it.
//
// Words that are not literal in a script: a glob (*, ?, […]) counts when it
// can match a protected path or something under one, component by
// component (src/*.go, *, s*/main.go), and, for removals and moves, a
// directory that contains one; it is also checked as the literal text a
// shell leaves when nothing matches. Brace expansions are expanded (up to
// 64 words each). A word with a parameter expansion, command substitution
// or tilde counts only by its literal beginning: src/$f counts (it is under
// src whatever f holds), $f, s$f and ~/x do not.
//
// Working directories: relative paths resolve against the working
// directory, and in a script a literal `cd DIR` or `pushd DIR` moves the
// commands after it in its list (and after && or ||), not past an
// enclosing subshell, pipeline or substitution; where a body may run or not
// (if, while, for, case, ||) both directories are kept, and so is the old
// one when DIR does not exist now. `cd out && rm -rf *` is not refused;
// `cd src && rm -rf .` is. A cd whose directory is not literal changes
// nothing; env -C and sudo -D move the command they run.
//
// A script that does not parse is read up to its first error (a shell runs
// no further), and its unparsed rest is refused when it names a protected
// path literally. One analysis reads at most 4096 statements, 8 nested
// shells, evals and wrappers, and 16 working directories; past that it
// stops reading.
//
// # Limits
//
// This is a best-effort pre-check that refuses the common and the obvious
// cases with a clear message; the kernel protection in the shell runner
// (host/sandbox) is the real guard for shell steps, and OpenWrite for the
// built-in tools. Not seen: what any other
// program writes (make, go, cargo, git, tar, patch, interpreters, scripts
// run by file name, source), values of variables and command output,
// arguments xargs reads from its input, aliases and functions redefining a
// writer, nested members of a tool's input, and, for tools, deletions or
// moves of a directory that contains a read-only path. Resolution follows
// symbolic links as they are when the check runs, the last component too:
// removing or moving a symbolic link that points into a protected tree is
// refused although it would leave the tree alone.
package protect
