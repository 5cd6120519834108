//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpen: a regular file opens; a FIFO with no writer, a directory and
// a device are refused at once with ErrNotRegular; OpenNoFollow refuses a
// symbolic link that Open follows.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file, fifo, link := filepath.Join(dir, "f"), filepath.Join(dir, "p"), filepath.Join(dir, "l")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(file); err != nil || string(b) != "x" {
		t.Errorf("ReadFile(file) = %q, %v", b, err)
	}
	for _, p := range []string{fifo, dir, "/dev/zero"} {
		if _, err := ReadFile(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v; want ErrNotRegular", p, err)
		}
	}
	if f, err := Open(link); err != nil {
		t.Errorf("Open(link): %v", err)
	} else {
		f.Close()
	}
	if f, err := OpenNoFollow(link); err == nil {
		f.Close()
		t.Error("OpenNoFollow(link) opened it")
	}
}
