//go:build unix

package capsule

import (
	"io"
	"os"
	"syscall"
	"testing"
)

// TestInheritedFile: an open descriptor is returned, readable and marked
// close-on-exec; one that is not open (beyond any limit) gives nil.
func TestInheritedFile(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte(`{"name": "local/x"}`))
	w.Close()
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	f := InheritedFile(fd, "manifest")
	if f == nil {
		t.Fatal("InheritedFile of an open descriptor: nil")
	}
	defer f.Close()
	if flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("fd %d not close-on-exec: flags %d, %v", fd, flags, errno)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != `{"name": "local/x"}` || f.Name() != "manifest" {
		t.Errorf("read %q, %v, name %q", b, err, f.Name())
	}
	if f := InheritedFile(1<<20, "x"); f != nil {
		t.Errorf("InheritedFile of a closed descriptor = %v, want nil", f)
	}
}
