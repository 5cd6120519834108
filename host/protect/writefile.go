package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path as the built-in write-file does: path is
// relative to workDir unless absolute, and is cleaned as text first (so
// "a/../b" is "b" whatever "a" is). A path beneath workDir is opened
// beneath it (workDir's own path may hold symbolic links); any other
// path is opened beneath outsideBase's directory ("/" on Unix), so no
// component of it may be a symbolic link. The file is opened with OpenWrite (created with perm, truncated
// once the checks pass), its missing directories made with MkdirAll. The
// errors name path as given.
func WriteFile(workDir, path string, data []byte, perm os.FileMode, set *Set) error {
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return fmt.Errorf("%q is not a path", path)
	}
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(workDir, full)
	}
	full, err := filepath.Abs(full)
	if err != nil {
		return err
	}
	dir, rel := outsideBase(full)
	if wd, err := filepath.Abs(workDir); err == nil {
		if r, err := filepath.Rel(wd, full); err == nil && filepath.IsLocal(r) {
			dir, rel = wd, r
		}
	}
	if rel == "" || rel == "." {
		return fmt.Errorf("%q is a directory", path)
	}
	const flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	f, err := OpenWrite(dir, rel, flag, perm, set)
	if errors.Is(err, fs.ErrNotExist) {
		if err = MkdirAll(dir, filepath.Dir(rel), 0o755, set); err == nil {
			f, err = OpenWrite(dir, rel, flag, perm, set)
		}
	}
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return named(err, path, dir, rel)
}

// named puts path, as a tool was given it, in place of rel, the name it
// was opened as beneath dir, in err.
func named(err error, path, dir, rel string) error {
	var se *SymlinkError
	var pe *ProtectedError
	var fe *fs.PathError
	switch {
	case err == nil:
	case errors.As(err, &se):
		if dir == "/" && se.Link != "" {
			se.Link = "/" + se.Link
		}
		se.Name = path
	case errors.As(err, &pe):
		pe.Name = path
	case errors.As(err, &fe):
		fe.Path = path
	default:
		return errors.New(strings.ReplaceAll(err.Error(), fmt.Sprintf("%q", rel), fmt.Sprintf("%q", path)))
	}
	return err
}
