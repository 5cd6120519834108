// Package regfile opens files for reading only when they are regular
// files. A FIFO where planc expects a file (in a session directory copied
// from elsewhere, or a .gitignore in a working directory) would hang an
// open or a read until a writer came; a device could be read without end.
package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error of a path that is a FIFO, a device, a socket
// or a directory.
var ErrNotRegular = errors.New("not a regular file (a FIFO, a device, a socket or a directory); planc reads only files there")

// Open opens the file at path for reading, only when it is a regular file.
// The open does not wait for a FIFO's writer (O_NONBLOCK, where the
// platform has it); the file's mode is checked on the descriptor.
func Open(path string) (*os.File, error) { return open(path, 0) }

// OpenNoFollow is Open, and refuses a symbolic link as path's last
// component too (O_NOFOLLOW, where the platform has it).
func OpenNoFollow(path string) (*os.File, error) { return open(path, noFollow) }

func open(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock|flag, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile is os.ReadFile of a regular file only (Open).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
