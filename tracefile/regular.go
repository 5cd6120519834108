package tracefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// errNotRegular is the error of a session file that is a FIFO, a device,
// a socket or a directory: reading one could block for ever, or never end.
var errNotRegular = errors.New("not a regular file (a FIFO, a device, a socket or a directory); planc reads only files there")

// OpenRegular opens the file at path for reading, only when it is a
// regular file: a session directory copied from elsewhere may hold a FIFO
// or a device where planc expects its trace or a kept output, and opening
// or reading one would hang planc trace (the open does not wait for a
// writer: O_NONBLOCK, where the platform has it).
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular is os.ReadFile of a regular file only (OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
