package protect

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteFile is write-file's cost: WriteFile of a small file four
// directories deep, against a Set of two directories and a file, beside
// os.WriteFile of the same file.
func BenchmarkWriteFile(b *testing.B) {
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "ro"), 0o755)
	os.MkdirAll(filepath.Join(dir, "a/b/c"), 0o755)
	set := NewSet([]string{filepath.Join(dir, "ro"), filepath.Join(dir, "plans"), filepath.Join(dir, "go.mod")}, nil)
	data := []byte("hello, world\n")
	b.Run("protect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := WriteFile(dir, "a/b/c/out.txt", data, 0o644, set); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := os.WriteFile(filepath.Join(dir, "a/b/c/out.txt"), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkShellHooks is the on-shell hook check of a bash -c step with a
// short script.
func BenchmarkShellHooks(b *testing.B) {
	c, err := New(Config{WorkDir: b.TempDir(), Hooks: hooksDenyRm})
	if err != nil {
		b.Fatal(err)
	}
	argv := []string{"bash", "-c", "cd build && make -j4 && ./run-tests --fast | tee log.txt; echo done"}
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Shell(argv, ""); r != nil {
			b.Fatal(r)
		}
	}
}
