// Package trust keeps the user's record of the project capsule manifests
// (.planc/capsule.json) they trusted: planc uses a manifest it discovered
// from the current directory only when this record holds that file with
// those very bytes, so a plan that writes a manifest cannot plant a
// capsule for a later run (the pattern of direnv's allow and mise's
// trust). The record lives outside every working directory, in the
// user's data directory, and planc protects it from every step.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvDir names the environment variable that sets the record's
// directory, over the default (Dir).
const EnvDir = "PLANC_TRUST_DIR"

// Dir returns the record's directory: $PLANC_TRUST_DIR; else
// $XDG_DATA_HOME/planc/trusted; else, on Unix systems other than macOS,
// ~/.local/share/planc/trusted; else planc/trusted in the user's
// configuration directory (os.UserConfigDir).
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "planc", "trusted"), nil
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, ".local", "share", "planc", "trusted"), nil
		}
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the trusted manifests: %w; set %s", err, EnvDir)
	}
	return filepath.Join(d, "planc", "trusted"), nil
}

// key is the record file of the manifest at path (absolute, its links
// followed): the SHA-256 of the path.
func key(path string) string {
	h := sha256.Sum256([]byte(path))
	return hex.EncodeToString(h[:])
}

// canonical is path made absolute with its symbolic links followed.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// Sum is the SHA-256 of src, in hex.
func Sum(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// Record trusts the manifest at path with the bytes src: it writes, in
// dir, a file named by the path's hash that holds the SHA-256 of src and
// the path.
func Record(dir, path string, src []byte) error {
	p, err := canonical(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".new-*")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(tmp, "%s %s\n", Sum(src), p)
	if err == nil {
		err = tmp.Chmod(0o644) // not a secret: planc under another uid may read it
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, key(p)))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// ErrUntrusted is the error Check returns for a manifest the record does
// not hold.
var ErrUntrusted = errors.New("not trusted")

// ErrChanged is the error Check returns for a manifest whose bytes are
// not the ones trusted.
var ErrChanged = errors.New("changed since it was trusted")

// Check returns nil when the record in dir trusts the manifest at path
// with the bytes src; ErrUntrusted when it holds nothing for path,
// ErrChanged when it holds other bytes.
func Check(dir, path string, src []byte) error {
	p, err := canonical(path)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, key(p)))
	if errors.Is(err, fs.ErrNotExist) {
		return ErrUntrusted
	}
	if err != nil {
		return err
	}
	sum, rest, _ := strings.Cut(strings.TrimSuffix(string(b), "\n"), " ")
	if rest != p {
		return ErrUntrusted
	}
	if sum != Sum(src) {
		return ErrChanged
	}
	return nil
}

// RecordUser records src as the trusted content of the manifest path in
// the user's record (Dir).
func RecordUser(path string, src []byte) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	return Record(dir, path, src)
}

// CheckFound returns nil when the user trusted the manifest path, found
// from the current directory, with the bytes src; else an error that says
// the fix.
func CheckFound(path string, src []byte) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	switch err := Check(dir, path, src); {
	case errors.Is(err, ErrUntrusted):
		return fmt.Errorf("%s (found from the current directory) is not trusted: planc runs under a project's capsule only once you trusted it, "+
			"so that a plan cannot plant one for a later run; read it, then run \"planc trust %s\" (or name it with --capsule)", path, path)
	case errors.Is(err, ErrChanged):
		return fmt.Errorf("%s (found from the current directory) has changed since you trusted it: "+
			"read what changed, then run \"planc trust %s\" (or name it with --capsule)", path, path)
	default:
		return err
	}
}
