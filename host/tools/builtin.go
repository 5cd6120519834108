package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sync"

	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/session"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
)

// Builtins are the runtime's built-in tools (docs/manifest.md): small,
// real, and enough to run examples/hello.json. Paths in their inputs
// are relative to WorkDir unless absolute.
type Builtins struct {
	// WorkDir is the directory relative paths and globs start from.
	WorkDir string
	// NotesPath is the file notes appends to (SESSION/notes.md).
	NotesPath string
	// Protected is what write-file and notes must not write, checked on
	// the file they open (protect.OpenWrite); nil protects nothing.
	Protected *protect.Set
}

// builtinTool is one built-in: its body. Its input's shape is its schema
// in host/toolschema, which check's tool-input rule holds plans to as well.
type builtinTool struct {
	call func(b *Builtins, in map[string]json.RawMessage) (string, error)
}

var builtinTools = map[string]builtinTool{
	"repo-files": {call: (*Builtins).repoFiles},
	"notes":      {call: (*Builtins).notes},
	"read-file":  {call: (*Builtins).readFile},
	"write-file": {call: (*Builtins).writeFile},
	"compose":    {call: (*Builtins).compose},
}

// builtinSchemas are the built-in tools' input schemas, compiled once.
var builtinSchemas = sync.OnceValues(func() (map[string]*check.InputSchema, error) {
	out := map[string]*check.InputSchema{}
	for name, raw := range toolschema.Builtin() {
		s, err := check.CompileInputSchema(raw)
		if err != nil {
			return nil, fmt.Errorf("the input schema of built-in tool %q: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
})

// IsBuiltin reports whether name is a built-in tool.
func IsBuiltin(name string) bool { _, ok := builtinTools[name]; return ok }

// Call runs the built-in tool name with input (nil is {}). A failing
// result is an error; its text names the tool.
func (b *Builtins) Call(_ context.Context, name string, input json.RawMessage) (string, error) {
	t, ok := builtinTools[name]
	if !ok {
		return "", fmt.Errorf("%q is not a built-in tool", name)
	}
	in, err := decode(name, input)
	if err == nil {
		var out string
		out, err = t.call(b, in)
		if err == nil {
			return out, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, err)
}

// decode holds the input to tool name's schema and splits it into fields.
func decode(name string, input json.RawMessage) (map[string]json.RawMessage, error) {
	schemas, err := builtinSchemas()
	if err != nil {
		return nil, err
	}
	s, ok := schemas[name]
	if !ok {
		return nil, fmt.Errorf("built-in tool %q has no input schema in host/toolschema", name)
	}
	if err := s.Validate(input); err != nil {
		return nil, err
	}
	in := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(input)) > 0 {
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, err // the schema wants an object: not reached
		}
	}
	return in, nil
}

// str returns input field f as a string; JSON null reads as "" when
// nullOK (a reference to a step without output substitutes null, S8).
func str(in map[string]json.RawMessage, f string, nullOK bool) (string, error) {
	raw := in[f]
	if string(raw) == "null" {
		if nullOK {
			return "", nil
		}
		return "", fmt.Errorf("%q is null; it must be a string (a reference to a step that produced no output reads as null)", f)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%q must be a string, not %s", f, jsonKind(raw))
	}
	return s, nil
}

// jsonKind names the JSON type of raw for messages.
func jsonKind(raw json.RawMessage) string {
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0:
		return "nothing"
	case t[0] == '{':
		return "an object"
	case t[0] == '[':
		return "a list"
	case t[0] == 't' || t[0] == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// resolve returns a tool path relative to WorkDir unless absolute.
func (b *Builtins) resolve(p string) (string, error) {
	if p == "" {
		return "", errors.New(`"path" is empty`)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errors.New(`"path" holds a NUL byte`)
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(b.WorkDir, p), nil
}

func (b *Builtins) repoFiles(in map[string]json.RawMessage) (string, error) {
	pattern, err := str(in, "glob", false)
	if err != nil {
		return "", err
	}
	files, err := repoFiles(b.WorkDir, pattern)
	if err != nil {
		return "", err
	}
	return strings.Join(files, "\n"), nil
}

func (b *Builtins) notes(in map[string]json.RawMessage) (string, error) {
	body, err := str(in, "body", true)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	f, err := protect.OpenWrite(filepath.Dir(b.NotesPath), filepath.Base(b.NotesPath), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644, b.Protected)
	if err != nil {
		return "", err
	}
	_, err = f.Write([]byte(body)) // one write: notes of concurrent runs do not interleave
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("appended %d bytes to %s", len(body), session.NotesFile), nil
}

func (b *Builtins) readFile(in map[string]json.RawMessage) (string, error) {
	p, err := str(in, "path", false)
	if err != nil {
		return "", err
	}
	full, err := b.resolve(p)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return "", pathErr(p, err)
	}
	return string(data), nil
}

func (b *Builtins) writeFile(in map[string]json.RawMessage) (string, error) {
	p, err := str(in, "path", false)
	if err != nil {
		return "", err
	}
	content, err := str(in, "content", true)
	if err != nil {
		return "", err
	}
	if _, err := b.resolve(p); err != nil {
		return "", err
	}
	// Resolved and opened in one step, without following symbolic links,
	// and checked on the opened file: no step racing this call can
	// redirect it (protect.WriteFile).
	if err := protect.WriteFile(b.WorkDir, p, []byte(content), 0o644, b.Protected); err != nil {
		return "", pathErr(p, err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(content), p), nil
}

// pathErr rewords an *fs.PathError with the path as the plan wrote it.
func pathErr(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, p, pe.Err)
	}
	return err
}
