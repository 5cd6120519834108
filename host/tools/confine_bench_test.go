package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile: one read-file call of a small file, confined and
// checked, beside a bare os.ReadFile of the same file (what read-file did
// before it was confined).
func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bt := &Builtins{WorkDir: dir, Inputs: schemaInputs{}}
	in := json.RawMessage(`{"path": "a.txt"}`)
	b.Run("read-file", func(b *testing.B) {
		for b.Loop() {
			if _, err := bt.Call(context.Background(), "read-file", in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write-file", func(b *testing.B) {
		win := json.RawMessage(`{"path": "w.txt", "content": "hello\n"}`)
		for b.Loop() {
			if _, err := bt.Call(context.Background(), "write-file", win); err != nil {
				b.Fatal(err)
			}
		}
	})
}
