package tracefile

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
)

// maxSessionBytes bounds session.json and completion.json, which are small.
const maxSessionBytes = 1 << 20

// MaxDepth bounds how deep Open follows delegations into child session
// directories; deeper ones are listed with a note.
const MaxDepth = 32

// Open reads the session at path: a session directory (its trace.jsonl and
// session.json) or a trace file (whose directory is taken as the session
// directory). It follows every delegation into delegations/<id>/, the
// child's own session directory, recursively.
//
// The error is for path itself: it does not exist, or is a directory with
// neither trace.jsonl nor session.json. Everything below it that is
// missing or unreadable (a child directory, a trace line, session.json) is
// a note in the session it belongs to, and Open still returns what there
// is.
func Open(path string) (*Session, error) { return openAt(path, true) }

// OpenTop reads the session at path as Open does, but does not follow its
// delegations: what `planc trace logs`, `report` and `list` need, which
// look at the session's own plans only.
func OpenTop(path string) (*Session, error) { return openAt(path, false) }

// openAt is Open, following the delegations when follow is set.
func openAt(path string, follow bool) (*Session, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		_, errT := os.Stat(filepath.Join(path, sessionfmt.TraceFile))
		_, errS := os.Stat(filepath.Join(path, sessionfmt.SessionFile))
		if errors.Is(errT, fs.ErrNotExist) && errors.Is(errS, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a session directory: it has neither %s nor %s", path, sessionfmt.TraceFile, sessionfmt.SessionFile)
		}
	}
	seen := map[string]bool{}
	if !follow {
		seen = nil
	}
	return open(path, fi.IsDir(), 0, seen), nil
}

// open reads one session; seen holds the directories already read on the
// way down, so a symbolic link cannot make a loop. A nil seen reads the
// session alone, without its delegations.
func open(path string, isDir bool, depth int, seen map[string]bool) *Session {
	dir, tracePath := path, filepath.Join(path, sessionfmt.TraceFile)
	if !isDir {
		dir, tracePath = filepath.Dir(path), path
	}
	var s *Session
	f, err := regfile.Open(tracePath)
	if err != nil {
		s = FromEvents(nil)
		s.TraceErr = err
		s.Notes = append(s.Notes, Note{Text: fmt.Sprintf("no trace: %v", err)})
	} else {
		events, notes, rerr := Read(f)
		f.Close()
		s = FromEvents(events)
		s.Notes = append(notes, s.Notes...)
		if rerr != nil {
			s.Notes = append(s.Notes, Note{Text: fmt.Sprintf("reading the trace stopped: %v", rerr)})
		}
	}
	s.Path, s.Dir = path, dir
	s.readInfo(isDir)
	s.addNotRun()
	// Notes about lines in line order; notes about the whole file last.
	slices.SortStableFunc(s.Notes, func(a, b Note) int {
		return cmp.Compare(noteKey(a), noteKey(b))
	})
	if seen == nil {
		return s
	}
	if key, err := filepath.EvalSymlinks(dir); err == nil {
		if seen[key] {
			s.Notes = append(s.Notes, Note{Text: "this directory was already shown above (a link loop?); its delegations are not followed"})
			return s
		}
		seen[key] = true
	}
	s.followDelegations(depth, seen)
	return s
}

func noteKey(n Note) int {
	if n.Line == 0 {
		return math.MaxInt
	}
	return n.Line
}

// readInfo fills the session's identity from session.json when the
// directory has one (opened as a directory, or a trace file whose
// directory holds one).
func (s *Session) readInfo(isDir bool) {
	var info sessionfmt.SessionInfo
	err := readJSON(filepath.Join(s.Dir, sessionfmt.SessionFile), &info)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if isDir {
			s.Notes = append(s.Notes, Note{Text: "no " + sessionfmt.SessionFile + "; the session is described from its trace"})
		}
		return
	case err != nil:
		s.Notes = append(s.Notes, Note{Text: fmt.Sprintf("%s: %v; the session is described from its trace", sessionfmt.SessionFile, err)})
		return
	}
	if info.ID != "" && s.ID != "" && info.ID != s.ID {
		s.Notes = append(s.Notes, Note{Text: fmt.Sprintf("%s names session %s but the trace names %s", sessionfmt.SessionFile, quote(info.ID), quote(s.ID))})
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&s.ID, info.ID)
	set(&s.Capsule, info.Capsule)
	set(&s.Version, info.Version)
	set(&s.Started, info.Started)
	if info.SpawnedBy != nil {
		s.SpawnedBy = *info.SpawnedBy
	}
	if info.DelegationID != nil {
		s.DelegationID = *info.DelegationID
	}
}

// readJSON decodes the small JSON file at path into v.
func readJSON(path string, v any) error {
	f, err := regfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSessionBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxSessionBytes {
		return fmt.Errorf("larger than %d bytes", maxSessionBytes)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return nil
}

// followDelegations reads each delegation's child session directory, and
// lists the directories under delegations/ that the trace does not name.
func (s *Session) followDelegations(depth int, seen map[string]bool) {
	base := filepath.Join(s.Dir, sessionfmt.DelegationsDir)
	if entries, err := os.ReadDir(base); err == nil {
		for _, ent := range entries {
			if ent.IsDir() && s.delegationByID[ent.Name()] == nil {
				d := &Delegation{ID: ent.Name(), Note: "the trace does not name this delegation; its directory is there"}
				s.delegationByID[d.ID] = d
				s.Delegations = append(s.Delegations, d)
			}
		}
	}
	for _, d := range s.Delegations {
		if !validDirName(d.ID) {
			d.Note = fmt.Sprintf("the delegation id %s is not a directory name; its directory is not looked for", quote(d.ID))
			continue
		}
		dir := filepath.Join(base, d.ID)
		fi, err := os.Stat(dir)
		switch {
		case err != nil:
			d.Note = fmt.Sprintf("no session directory at %s", filepath.Join(sessionfmt.DelegationsDir, d.ID))
			if !errors.Is(err, fs.ErrNotExist) {
				d.Note += fmt.Sprintf(" (%v)", err)
			}
			continue
		case !fi.IsDir():
			d.Note = fmt.Sprintf("%s is not a directory", filepath.Join(sessionfmt.DelegationsDir, d.ID))
			continue
		case depth+1 >= MaxDepth:
			d.Note = fmt.Sprintf("delegations nest deeper than %d; not followed", MaxDepth)
			continue
		}
		var c sessionfmt.Completion
		if err := readJSON(filepath.Join(dir, sessionfmt.CompletionFile), &c); err == nil {
			d.Completion = &c
		} else if !errors.Is(err, fs.ErrNotExist) {
			d.Note = fmt.Sprintf("%s: %v", sessionfmt.CompletionFile, err)
		}
		d.Child = open(dir, true, depth+1, seen)
	}
}

// validDirName reports whether id can name a directory inside
// delegations/ without leaving it: not empty, not . or .., no separator,
// no NUL.
func validDirName(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`+"\x00")
}

// Latest returns the most recent session directory under root (such as
// .planc/sessions): session directory names start with their UTC time, so
// the last name in order that is a session directory is the newest — to
// the second. Sessions made within the same second (their names differ
// only in the random hex after it) are told apart by the started time
// their session.json records, to the nanosecond; one whose session.json
// cannot say counts as the oldest of its second.
func Latest(root string) (string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", fmt.Errorf("no sessions: %v", err)
	}
	best, second := "", ""
	var bestStarted time.Time
	for i := len(entries) - 1; i >= 0; i-- {
		name := entries[i].Name()
		if best != "" && !strings.HasPrefix(name, second) {
			break // an earlier second
		}
		dir := filepath.Join(root, name)
		if !entries[i].IsDir() || !IsSessionDir(dir) {
			continue
		}
		started := sessionStarted(dir)
		if best == "" {
			best, bestStarted = dir, started
			second, _, _ = strings.Cut(name, "-")
			second += "-"
			continue
		}
		if started.After(bestStarted) {
			best, bestStarted = dir, started
		}
	}
	if best == "" {
		return "", fmt.Errorf("no session directory in %s", root)
	}
	return best, nil
}

// IsSessionDir reports whether dir holds a trace.jsonl or a session.json.
func IsSessionDir(dir string) bool {
	for _, f := range []string{sessionfmt.TraceFile, sessionfmt.SessionFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// sessionStarted returns the started time dir's session.json records, the
// zero time when it records none.
func sessionStarted(dir string) time.Time {
	var info sessionfmt.SessionInfo
	if readJSON(filepath.Join(dir, sessionfmt.SessionFile), &info) != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, info.Started)
	if err != nil {
		return time.Time{}
	}
	return t
}
