package capsule

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
)

// A Pin is one file a spawn checked for the sub-capsule it starts: its
// allowlisted binary, its command entrypoint's executable or a file its
// command names, an MCP server's executable or script. The parent takes
// the travel from the path to the file — every symbolic link on the way,
// with what it held, and the identity of the file it led to — right
// before it starts the child, and hands it over on the manifest pipe; the
// child checks the same travel again at its start, right before its
// command starts and at its plan's start, and runs the file the links led
// to. A link re-pointed or a file replaced between the parent's check and
// the child's use is refused, not followed (docs/security.md, "What a
// sub-capsule runs").
type Pin struct {
	// Path is the file as the manifest names it, made absolute (a word
	// resolved as a step resolves it, S14).
	Path string `json:"path"`
	// Word is the allowlisted shell word or the command's first word
	// Path was resolved from; "" for an argument.
	Word string `json:"word,omitempty"`
	// Kind is what the file is to the capsule: PinAllowed, PinCommand,
	// PinCommandArg, PinServer, PinPlan.
	Kind string `json:"kind"`
	// Links are the symbolic links on the way from Path, in order.
	Links []PinLink `json:"links,omitempty"`
	// Real is the file the links led to; Dev and Ino its identity.
	Real string `json:"real"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

// PinLink is one symbolic link on a pinned travel and what it held.
type PinLink struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// The kinds of pins.
const (
	PinAllowed    = "allowed"     // an allowlisted shell word's file
	PinCommand    = "command"     // the command entrypoint's executable
	PinCommandArg = "command-arg" // a file an argument of the command names
	PinServer     = "server"      // an MCP server's executable or a file it names
	PinPlan       = "plan"        // the plan entrypoint's plan file
)

// pinsMagic starts the header block the launcher writes on the manifest
// pipe before the manifest: this line, one line of JSON (the pins), then
// the manifest's bytes.
const pinsMagic = "planc-pins 1\n"

// maxPins bounds the header block.
const maxPins = 1 << 20

// pinHeader is the JSON line of the header block.
type pinHeader struct {
	Pins []Pin `json:"pins"`
}

// travel walks p, an absolute path, as the kernel resolves it, and
// returns every symbolic link on the way, the file it leads to and that
// file's identity. It fails when p leads to nothing, or through more than
// 40 links.
func travel(p string) (Pin, error) {
	pin := Pin{Path: p}
	rest := strings.Split(strings.Trim(filepath.Clean(p), "/"), "/")
	cur := "/"
	for hops := 0; len(rest) > 0; {
		if rest[0] == "" || rest[0] == "." {
			rest = rest[1:]
			continue
		}
		if rest[0] == ".." {
			cur = filepath.Dir(cur)
			rest = rest[1:]
			continue
		}
		next := filepath.Join(cur, rest[0])
		rest = rest[1:]
		fi, err := os.Lstat(next)
		if err != nil {
			return pin, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return pin, &os.PathError{Op: "resolve", Path: p, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return pin, err
		}
		pin.Links = append(pin.Links, PinLink{Path: next, Target: target})
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
	}
	fi, err := os.Stat(cur)
	if err != nil {
		return pin, err
	}
	pin.Real = cur
	pin.Dev, pin.Ino, _ = fileID(fi)
	return pin, nil
}

// pinsFor returns the pins of the capsule rc as the launcher checks it
// right before starting it: each allowlisted word resolved in workDir,
// its command entrypoint's executable (resolved from the capsule's
// directory) and the files its arguments name (from workDir), and each
// MCP server's executable and the files its arguments name, and its
// entrypoint plan (from the capsule's directory). What names
// no file now is not pinned: the spawn guard has refused what matters of
// it (spawnGuard), and an argument is often no file.
func pinsFor(rc *Found, workDir string) []Pin {
	var pins []Pin
	seen := map[string]bool{}
	add := func(p, word, kind string) {
		if p == "" || seen[kind+"\x00"+p] {
			return
		}
		pin, err := travel(p)
		if err != nil {
			return
		}
		if fi, err := os.Stat(pin.Real); err != nil || !fi.Mode().IsRegular() {
			return
		}
		seen[kind+"\x00"+p] = true
		pin.Word, pin.Kind = word, kind
		pins = append(pins, pin)
	}
	word := func(w, dir, kind string) {
		if p, err := sandbox.Resolve(w, dir); err == nil {
			add(p, w, kind)
		}
	}
	arg := func(a, dir, kind string) {
		if a != "" && !strings.HasPrefix(a, "-") {
			add(session.AbsPath(dir, a), "", kind)
		}
	}
	m := rc.Manifest
	for _, w := range ast.Names(m.Capabilities.ShellAllow) {
		word(w, workDir, PinAllowed)
	}
	if e := m.Entrypoint; e != nil && len(e.Command) > 0 {
		word(e.Command[0], rc.Dir, PinCommand)
		for _, a := range e.Command[1:] {
			arg(a, workDir, PinCommandArg)
		}
	}
	if e := m.Entrypoint; e != nil && e.Plan != "" {
		arg(e.Plan, rc.Dir, PinPlan)
	}
	for _, srv := range m.Tools.MCP {
		word(srv.Command[0], rc.Dir, PinServer)
		for _, a := range srv.Command[1:] {
			arg(a, workDir, PinServer)
			arg(a, rc.Dir, PinServer)
		}
	}
	return pins
}

// encodePins is the header block of pins for the manifest pipe.
func encodePins(pins []Pin) []byte {
	b, _ := json.Marshal(pinHeader{Pins: pins})
	return append(append([]byte(pinsMagic), b...), '\n')
}

// readPinned reads what the launcher wrote on the manifest pipe: the
// header block of pins, when there is one, and the manifest's bytes (at
// most maxManifest+1 of them, for the caller to refuse).
func readPinned(r io.Reader) (pins []Pin, src []byte, err error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(len(pinsMagic))
	if err == nil && string(head) == pinsMagic {
		br.Discard(len(pinsMagic))
		line, err := readLine(br, maxPins)
		if err != nil {
			return nil, nil, fmt.Errorf("the pins of the spawn: %w", err)
		}
		var h pinHeader
		if err := json.Unmarshal(line, &h); err != nil {
			return nil, nil, fmt.Errorf("the pins of the spawn: %w", err)
		}
		pins = h.Pins
	}
	src, err = io.ReadAll(io.LimitReader(br, maxManifest+1))
	return pins, src, err
}

// readLine reads one line of at most max bytes, without its newline.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, fmt.Errorf("over %d bytes", max)
		}
		if err == nil {
			return bytes.TrimSuffix(line, []byte("\n")), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// what says what a pin is, for refusals.
func (p Pin) what() string {
	switch p.Kind {
	case PinAllowed:
		return fmt.Sprintf("the file its allowed command %q runs", p.Word)
	case PinCommand:
		return "its command entrypoint"
	case PinCommandArg:
		return "a file its command entrypoint names"
	case PinServer:
		return "a file of its MCP server"
	case PinPlan:
		return "its entrypoint plan"
	}
	return "a file it runs"
}

// CheckPins walks each pin's path again and refuses when the travel is
// not the one the spawn checked: a link on the way re-pointed, added or
// removed, the file it leads to gone or replaced by another. The error
// says which file and how, and that nothing of it ran.
func CheckPins(pins []Pin) error {
	for _, p := range pins {
		now, err := travel(p.Path)
		if err != nil {
			return fmt.Errorf("refused: %s (%s) was checked when the spawn was, and leads to nothing now (%v); "+
				"a sub-capsule runs only what its spawn checked", p.Path, p.what(), unwrapErr(err))
		}
		if err := samePin(p, now); err != nil {
			return err
		}
	}
	return nil
}

// samePin says how now, the travel of was's path taken again, differs
// from was; nil when it does not.
func samePin(was, now Pin) error {
	for i, l := range was.Links {
		if i >= len(now.Links) || now.Links[i] != l {
			nowAt := "is no symbolic link now"
			if i < len(now.Links) && now.Links[i].Path == l.Path {
				nowAt = fmt.Sprintf("holds %q now", now.Links[i].Target)
			}
			return fmt.Errorf("refused: %s (%s) passes through the symbolic link %s, which held %q when the spawn was checked and %s; "+
				"a sub-capsule runs only what its spawn checked, and never follows a link re-pointed since", was.Path, was.what(), l.Path, l.Target, nowAt)
		}
	}
	if len(now.Links) > len(was.Links) {
		l := now.Links[len(was.Links)]
		return fmt.Errorf("refused: %s (%s) passes through the symbolic link %s (to %q), which was not there when the spawn was checked; "+
			"a sub-capsule runs only what its spawn checked", was.Path, was.what(), l.Path, l.Target)
	}
	if now.Real != was.Real || now.Dev != was.Dev || now.Ino != was.Ino {
		return fmt.Errorf("refused: %s (%s) is not the file its spawn checked (device %d inode %d then, device %d inode %d now): it was replaced since; "+
			"a sub-capsule runs only what its spawn checked", now.Real, was.what(), was.Dev, was.Ino, now.Dev, now.Ino)
	}
	return nil
}

// unwrapErr drops a *PathError's op and path.
func unwrapErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Resolved is what a sub-capsule's run resolved an allowlisted shell word
// to at its plan start (host.Config.AtPlanStart): the path S14 found and
// the file its links lead to.
type Resolved struct {
	Word, Path, Real string
	File             os.FileInfo // Real's, for its identity
}

// CheckResolved compares what the run resolved at its plan start with
// the pins of its spawn: an allowlisted word the spawn pinned must
// resolve to the very file pinned, by the same path (a word that resolves
// to another file, or to none, refuses the plan); and every pin's travel
// must still be the one checked (CheckPins).
func CheckResolved(pins []Pin, resolved []Resolved) error {
	if err := CheckPins(pins); err != nil {
		return err
	}
	byWord := map[string]Resolved{}
	for _, r := range resolved {
		byWord[r.Word] = r
	}
	for _, p := range pins {
		if p.Kind != PinAllowed {
			continue
		}
		r, ok := byWord[p.Word]
		if !ok {
			return fmt.Errorf("refused: the allowed command %q resolved to %s when the spawn was checked and to nothing at the plan's start; "+
				"a sub-capsule runs only what its spawn checked", p.Word, p.Real)
		}
		dev, ino, ok := fileID(r.File)
		if r.Path != p.Path || r.Real != p.Real || !ok || dev != p.Dev || ino != p.Ino {
			return fmt.Errorf("refused: the allowed command %q resolved to %s when the spawn was checked and to %s at the plan's start; "+
				"a sub-capsule runs only what its spawn checked", p.Word, p.Real, r.Real)
		}
	}
	return nil
}

// pinnedCommand returns the file the command entrypoint's pin led to and
// argv with each pinned argument replaced by the file its links led to:
// what the child runs, so that no link is followed again. path is "" when
// the command has no pin.
func pinnedCommand(pins []Pin, argv []string, workDir string) (path string, args []string) {
	args = append([]string(nil), argv...)
	for _, p := range pins {
		switch p.Kind {
		case PinCommand:
			if p.Word == argv[0] {
				path = p.Real
			}
		case PinCommandArg:
			if len(p.Links) == 0 {
				continue
			}
			for i := 1; i < len(args); i++ {
				if args[i] == argv[i] && session.AbsPath(workDir, argv[i]) == p.Path {
					args[i] = p.Real
				}
			}
		}
	}
	return path, args
}
