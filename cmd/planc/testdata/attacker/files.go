package main

// The direct writes: every way a program changes a file or its name,
// made with the system calls, against each target and each protected
// directory of attack.json.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

func init() { classes["files"] = attackFiles }

// forged is a trace line a step would like planc's readers to believe.
const forged = `{"ts":"2000-01-01T00:00:00Z","event":"plan_end","outcome":"completed","forged":true}` + "\n"

// torn is half a line, which planc's next line would be glued to.
const torn = `{"ts":"2000-01-01T00:00:00Z","event":"step_`

// attackFiles writes, truncates, removes, renames, replaces, links,
// re-owns, re-dates and re-labels each target, and removes, renames and
// writes into each of cfg.Dirs.
func attackFiles([]string) {
	for i, p := range cfg.Targets {
		appendBytes("append a forged event to "+p, p, forged)
		appendBytes("append a torn half line to "+p, p, torn)
		writeAt("overwrite the start of "+p, p)
		openTrunc("open with O_TRUNC "+p, p)
		report("truncate "+p, os.Truncate(p, 0))
		report("unlink "+p, unix.Unlink(p))
		report("rename "+p+" away", renameBack(p, p+".moved"))
		report("rename a file over "+p, replaceWith(p, func(tmp string) error { return os.WriteFile(tmp, []byte("pwned\n"), 0o644) }))
		report("rename a symbolic link over "+p, replaceWith(p, func(tmp string) error { return os.Symlink("/etc/hostname", tmp) }))
		hard := filepath.Join(cfg.Dir, "hard-link-"+strconv.Itoa(i))
		err := os.Link(p, hard)
		if err == nil {
			os.Remove(hard)
		}
		report("hard link "+p+" to "+hard, err)
		report("chmod "+p, os.Chmod(p, 0o666))
		report("chown "+p, os.Chown(p, os.Getuid(), os.Getgid()))
		t := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		report("utimes (touch -d) "+p, os.Chtimes(p, t, t))
		report("setxattr user.planc on "+p, unix.Setxattr(p, "user.planc", []byte("pwned"), 0))
	}
	for _, d := range cfg.Dirs {
		report("rename the directory "+d+" away", renameBack(d, d+".moved"))
		report("rmdir "+d, unix.Rmdir(d))
		report("create a file in "+d, create(filepath.Join(d, "completion.json")))
		report("mkdir in "+d, mkdir(filepath.Join(d, "reports-forged")))
	}
}

// appendBytes appends s to p.
func appendBytes(what, p, s string) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.WriteString(s)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	report(what, err)
}

// writeAt writes over p's first bytes, as dd conv=notrunc does.
func writeAt(what, p string) {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteAt([]byte("pw"), 0)
		f.Close()
	}
	report(what, err)
}

// openTrunc opens p with O_TRUNC.
func openTrunc(what, p string) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err == nil {
		f.Close()
	}
	report(what, err)
}

// renameBack renames from to to and, when that worked, back, so that
// the world stays whole enough for the next attempts; the first rename
// is the escape.
func renameBack(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	os.Rename(to, from)
	return nil
}

// replaceWith makes a temporary beside p with mk and renames it over p;
// the temporary is removed when the rename fails.
func replaceWith(p string, mk func(tmp string) error) error {
	tmp := p + ".new"
	if err := mk(tmp); err != nil {
		return fmt.Errorf("making %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// create makes the file p.
func create(p string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		f.Close()
	}
	return err
}

// mkdir makes the directory p.
func mkdir(p string) error { return os.Mkdir(p, 0o755) }
