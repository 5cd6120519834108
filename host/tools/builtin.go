package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/internal/sessionfmt"
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
	// Inputs holds a call's input to the tool's input schema in
	// host/toolschema, as check's tool-input rule holds a step's
	// (capenv.Env does); a Builtins without it calls no tool.
	Inputs InputChecker
}

// InputChecker holds a built-in tool's input to that tool's input schema.
type InputChecker interface {
	CheckInput(tool string, input json.RawMessage) error
}

// builtinTool is one built-in: its body. Its input's shape is its schema
// in host/toolschema, which check's tool-input rule holds plans to as well.
type builtinTool struct {
	call func(b *Builtins, ctx context.Context, in map[string]json.RawMessage) (string, error)
	// raw, when set, is called instead of call with the context and the
	// input as written, once the schema has held it: notes keeps the
	// order of the members.
	raw func(b *Builtins, ctx context.Context, input json.RawMessage) (string, error)
}

var builtinTools = map[string]builtinTool{
	"repo-files": {call: (*Builtins).repoFiles},
	"notes":      {raw: (*Builtins).notes},
	"read-file":  {call: (*Builtins).readFile},
	"write-file": {call: (*Builtins).writeFile},
	"compose":    {call: (*Builtins).compose},
}

// IsBuiltin reports whether name is a built-in tool.
func IsBuiltin(name string) bool { _, ok := builtinTools[name]; return ok }

// Call runs the built-in tool name with input (nil is {}). A failing
// result is an error; its text names the tool.
func (b *Builtins) Call(ctx context.Context, name string, input json.RawMessage) (string, error) {
	t, ok := builtinTools[name]
	if !ok {
		return "", fmt.Errorf("%q is not a built-in tool", name)
	}
	in, err := b.decode(name, input)
	if err == nil {
		var out string
		if t.raw != nil {
			out, err = t.raw(b, ctx, input)
		} else {
			out, err = t.call(b, ctx, in)
		}
		if err == nil {
			return out, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, err)
}

// decode holds the input to tool name's schema and splits it into fields.
func (b *Builtins) decode(name string, input json.RawMessage) (map[string]json.RawMessage, error) {
	if b.Inputs == nil {
		return nil, errors.New("no input schemas to hold the input to (Builtins.Inputs)")
	}
	if err := b.Inputs.CheckInput(name, input); err != nil {
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

func (b *Builtins) repoFiles(ctx context.Context, in map[string]json.RawMessage) (string, error) {
	pattern, err := str(in, "glob", false)
	if err != nil {
		return "", err
	}
	files, err := repoFiles(ctx, b.WorkDir, pattern)
	if err != nil {
		return "", err
	}
	return strings.Join(files, "\n"), nil
}

// stepKey is the context key of the step a built-in tool is called for.
type stepKey struct{}

// stepRef is the plan and the step a built-in tool is called for.
type stepRef struct{ plan, step string }

// WithStep returns ctx carrying the plan and the step a built-in tool is
// called for: notes with no input names them.
func WithStep(ctx context.Context, plan, step string) context.Context {
	return context.WithValue(ctx, stepKey{}, stepRef{plan, step})
}

// notes appends to the session's notes (S31). Its schema has held the
// input to an object of strings and nulls, or none:
//
//   - no input, or {}: a line naming the plan and the step,
//     `plan "release", step "notify"`;
//   - {"body": TEXT} alone: TEXT as it is (null: an empty line);
//   - any other members: each, in the order written, as `NAME: VALUE`
//     (null: empty), so {"log": "$build.output"} appends `log: ` and the
//     build's output.
//
// What it appends ends with a newline; it returns how many bytes.
func (b *Builtins) notes(ctx context.Context, input json.RawMessage) (string, error) {
	members, err := orderedStrings(input)
	if err != nil {
		return "", err
	}
	var body string
	switch {
	case len(members) == 0:
		if r, ok := ctx.Value(stepKey{}).(stepRef); ok {
			body = fmt.Sprintf("plan %q, step %q", r.plan, r.step)
		} else {
			body = "a note with no input"
		}
	case len(members) == 1 && members[0][0] == "body":
		body = members[0][1]
	default:
		var sb strings.Builder
		for _, m := range members {
			sb.WriteString(m[0])
			sb.WriteString(": ")
			sb.WriteString(m[1])
			if !strings.HasSuffix(m[1], "\n") {
				sb.WriteByte('\n')
			}
		}
		body = sb.String()
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
	return fmt.Sprintf("appended %s to %s", byteCount(len(body)), sessionfmt.NotesFile), nil
}

// orderedStrings returns the members of a JSON object of strings and
// nulls (null as ""), in the order written; none for no input.
func orderedStrings(input json.RawMessage) ([][2]string, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		return nil, nil
	}
	var out [][2]string
	dec := json.NewDecoder(bytes.NewReader(input))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v *string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%q must be a string or null", k)
		}
		m := [2]string{k.(string), ""}
		if v != nil {
			m[1] = *v
		}
		out = append(out, m)
	}
	return out, nil
}

func (b *Builtins) readFile(_ context.Context, in map[string]json.RawMessage) (string, error) {
	p, err := str(in, "path", false)
	if err != nil {
		return "", err
	}
	root, rel, err := b.place(p)
	if err != nil {
		return "", err
	}
	// Resolved beneath root and checked on what was opened (openRead):
	// a regular file of an ordinary file system, opened without blocking.
	f, size, err := openRead(root, rel, p)
	if err != nil {
		return "", pathErr(p, err)
	}
	defer f.Close()
	if size > MaxRead {
		return "", tooBig(p, fmt.Sprintf("%d bytes", size))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRead+1))
	if err != nil {
		return "", pathErr(p, err)
	}
	if len(data) > MaxRead { // it grew since its size was read
		return "", tooBig(p, fmt.Sprintf("over %d bytes", MaxRead))
	}
	return string(data), nil
}

// MaxRead is the most read-file returns: 16 MiB, the most of a step's
// output that references see whole (semantics S20: the report cuts any
// output at 64 KiB and keeps it whole in the session).
const MaxRead = 16 << 20

// tooBig is read-file's refusal of a file over MaxRead, whose size is
// what is known of it.
func tooBig(p, size string) error {
	return fmt.Errorf("%q is %s; read-file reads at most %d (16 MiB): read a smaller file, or read it with a shell step", p, size, MaxRead)
}

// byteCount is n bytes in words: "1 byte", "6 bytes".
func byteCount(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

func (b *Builtins) writeFile(_ context.Context, in map[string]json.RawMessage) (string, error) {
	p, err := str(in, "path", false)
	if err != nil {
		return "", err
	}
	content, err := str(in, "content", true)
	if err != nil {
		return "", err
	}
	root, rel, err := b.place(p)
	if err != nil {
		return "", err
	}
	// Resolved and opened in one step, without following symbolic links,
	// and checked on the opened file (protect.OpenWrite, then openedOK):
	// no step racing this call can redirect it, and no kernel file (a
	// /proc/sys knob) is written.
	if err := writeBeneath(root, rel, []byte(content), b.Protected); err != nil {
		return "", named(err, p, rel)
	}
	return fmt.Sprintf("wrote %s to %s", byteCount(len(content)), p), nil
}

// Refuses returns the refusal write-file would meet for the file its input
// names as that file is now — protected, or a hard link to a protected
// file (protect.ProbeWrite) — so that the host refuses the step before it
// is dispatched, with the protected_path_denied line a refusal has; nil
// for any other tool and input, and when the write would not be refused
// so (the call still checks the file it opens).
func (b *Builtins) Refuses(tool string, input json.RawMessage) *protect.ProtectedError {
	if b == nil || tool != "write-file" || b.Protected == nil {
		return nil
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	p, err := str(in, "path", false)
	if err != nil {
		return nil
	}
	root, rel, err := b.place(p)
	if err != nil {
		return nil
	}
	pe := protect.ProbeWrite(root, rel, b.Protected)
	if pe != nil {
		pe.Name = p
	}
	return pe
}

// writeBeneath writes data to rel beneath root: the file is opened with
// protect.OpenWrite (its missing directories made with protect.MkdirAll),
// checked with openedOK, and truncated and written only then.
func writeBeneath(root, rel string, data []byte, set *protect.Set) error {
	if rel == "." {
		return errors.New("is a directory")
	}
	const flag = os.O_WRONLY | os.O_CREATE
	f, err := protect.OpenWrite(root, rel, flag, 0o644, set)
	if errors.Is(err, fs.ErrNotExist) {
		if err = protect.MkdirAll(root, filepath.Dir(rel), 0o755, set); err == nil {
			f, err = protect.OpenWrite(root, rel, flag, 0o644, set)
		}
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := openedOK(f, rel); err != nil {
		return err
	}
	// The content goes over the old one, and the file is then cut to its
	// length: truncating it to zero first would make ext4 (auto_da_alloc)
	// start writing it back at close, which costs a write-file call most
	// of its time.
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Close()
}

// place confines a tool path to the working directory or the session
// directory: it returns the one p lies beneath (cleaned as text, relative
// to the working directory unless absolute) and p's path beneath it. Any
// other path is refused.
func (b *Builtins) place(p string) (root, rel string, err error) {
	full, err := b.resolve(p)
	if err != nil {
		return "", "", err
	}
	full, err = filepath.Abs(full)
	if err != nil {
		return "", "", err
	}
	roots := []string{b.WorkDir}
	if b.NotesPath != "" {
		roots = append(roots, filepath.Dir(b.NotesPath))
	}
	for _, r := range roots {
		r, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(r, full); err == nil && filepath.IsLocal(rel) {
			return r, rel, nil
		}
	}
	return "", "", fmt.Errorf("%q is outside the working directory; built-in tools read and write only beneath it (and beneath the session directory): use a path there, or a shell step", p)
}

// notPlain is the refusal of a file that is not a regular file of an
// ordinary file system.
func notPlain(p, what string) error {
	return fmt.Errorf("%q is %s; built-in tools read and write only regular files of ordinary file systems (no /proc, /sys, /dev, FIFO, socket or device)", p, what)
}

// named puts p, the path as the plan wrote it, in place of rel, the path
// it was opened as, in err.
func named(err error, p, rel string) error {
	var se *protect.SymlinkError
	var pe *protect.ProtectedError
	var fe *fs.PathError
	switch {
	case errors.As(err, &se):
		se.Name = p
	case errors.As(err, &pe):
		pe.Name = p
	case errors.As(err, &fe):
		return fmt.Errorf("%s %s: %v", fe.Op, p, fe.Err)
	case strings.Contains(err.Error(), fmt.Sprintf("%q", rel)):
		return errors.New(strings.ReplaceAll(err.Error(), fmt.Sprintf("%q", rel), fmt.Sprintf("%q", p)))
	default:
		return fmt.Errorf("%s: %w", p, err)
	}
	return err
}

// pathErr rewords an *fs.PathError with the path as the plan wrote it.
func pathErr(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, p, pe.Err)
	}
	return err
}
