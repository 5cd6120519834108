//go:build !linux

package tools

import (
	"os"
	"path/filepath"
)

// checkMode refuses fi unless it is a regular file.
func checkMode(fi os.FileInfo, name string) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return notPlain(name, "a directory")
	case m&os.ModeNamedPipe != 0:
		return notPlain(name, "a FIFO")
	case m&os.ModeSocket != 0:
		return notPlain(name, "a socket")
	case m&os.ModeDevice != 0:
		return notPlain(name, "a device")
	}
	return notPlain(name, "not a regular file")
}

// openedOK checks a file write-file opened: a regular file.
func openedOK(f *os.File, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return checkMode(fi, name)
}

// openRead opens rel beneath root for reading, as the plan's path p,
// checked by name before it is opened (no FIFO or device is opened) and
// on the opened file after; it returns the file and its size. Elsewhere
// than Linux the name is checked first, so a step racing the call could
// swap the file between the check and the open; the checks on the
// opened file still hold.
func openRead(root, rel, p string) (*os.File, int64, error) {
	full := filepath.Join(root, rel)
	fi, err := os.Stat(full)
	if err != nil {
		return nil, 0, err
	}
	if err := checkMode(fi, p); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, 0, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = checkMode(fi, p)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
