package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/planc/planc/internal/sessionfmt"
)

// RuntimeDir is planc's directory in the working directory; repo-files
// does not list it.
const RuntimeDir = ".planc"

// DefaultSessionsDir is where `planc run` makes a new session directory
// when it is given none, relative to the working directory.
const DefaultSessionsDir = RuntimeDir + "/sessions"

// NewInfo is the session.json of a session of capsule (at version):
// spawnedBy and delegationID name the parent session and delegation of a
// sub-capsule's session, "" (null) at top level. Create or Open set its
// id and start time.
func NewInfo(capsule, version, spawnedBy, delegationID string) sessionfmt.SessionInfo {
	return sessionfmt.SessionInfo{Capsule: capsule, Version: version, SpawnedBy: nullable(spawnedBy), DelegationID: nullable(delegationID)}
}

// nullable is s as session.json's nullable string: nil for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Session is an open session directory.
type Session struct {
	// Dir is the session directory.
	Dir string
	// Info is its session.json.
	Info sessionfmt.SessionInfo
}

// NewID returns a fresh session id: the UTC time and 6 random hex digits.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return now.UTC().Format(sessionfmt.IDTimeLayout) + "-" + hex.EncodeToString(b[:])
}

// Create makes a new session directory under root (made if need be),
// named by a fresh session id, and writes its session.json from info
// (whose ID and Started it sets).
func Create(root string, info sessionfmt.SessionInfo) (*Session, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	for range 16 {
		now := time.Now()
		id := NewID(now)
		dir := filepath.Join(root, id)
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // the same second and the same 24 random bits: try again
		}
		if err != nil {
			return nil, err
		}
		info.ID, info.Started = id, now.UTC().Format(time.RFC3339Nano)
		return openSession(dir, info)
	}
	return nil, fmt.Errorf("could not make a new session directory under %s", root)
}

// Open reuses the session directory dir (`planc run --session`). A
// directory without a session.json (or one that does not exist yet)
// becomes a new session, as Create would make it; two runs doing that at
// once agree on one session.json.
func Open(dir string, info sessionfmt.SessionInfo) (*Session, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if s, err := readSession(dir); err == nil {
		return s, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	now := time.Now()
	info.ID, info.Started = NewID(now), now.UTC().Format(time.RFC3339Nano)
	return openSession(dir, info)
}

// openSession writes session.json unless one exists (then it wins: another
// run made the session first) and makes the plans and outputs directories.
func openSession(dir string, info sessionfmt.SessionInfo) (*Session, error) {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, err
	}
	// Write a private file and link it into place: the link either makes
	// a whole session.json or fails with EEXIST, never a half-written one.
	tmp, err := os.CreateTemp(dir, ".session-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return nil, err
	}
	s := &Session{Dir: dir, Info: info}
	if err := os.Link(tmp.Name(), filepath.Join(dir, sessionfmt.SessionFile)); errors.Is(err, fs.ErrExist) {
		if s, err = readSession(dir); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	for _, d := range []string{sessionfmt.PlansDir, sessionfmt.OutputsDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readSession reads dir's session.json.
func readSession(dir string) (*Session, error) {
	b, err := os.ReadFile(filepath.Join(dir, sessionfmt.SessionFile))
	if err != nil {
		return nil, err
	}
	var info sessionfmt.SessionInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, sessionfmt.SessionFile), err)
	}
	if info.ID == "" {
		return nil, fmt.Errorf("%s names no session", filepath.Join(dir, sessionfmt.SessionFile))
	}
	for _, d := range []string{sessionfmt.PlansDir, sessionfmt.OutputsDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	return &Session{Dir: dir, Info: info}, nil
}

// PlanFile is one plan written into a session.
type PlanFile struct {
	// N numbers the plan in its session, from 1.
	N int
	// Rel is its path relative to the session directory,
	// plans/plan-<n>.json (plan_start's plan_file).
	Rel string
	// Path is its path.
	Path string
	// SHA256 is the digest of the bytes written.
	SHA256 [sha256.Size]byte
}

// WritePlan writes src to the next free plans/plan-<n>.json, creating it
// with O_EXCL (taking the next number on EEXIST, so that two runs sharing
// the session never share a number), synced and read-only (0444).
func (s *Session) WritePlan(src []byte) (*PlanFile, error) {
	dir := filepath.Join(s.Dir, sessionfmt.PlansDir)
	for n := nextPlanNumber(dir); ; n++ {
		rel := filepath.Join(sessionfmt.PlansDir, "plan-"+strconv.Itoa(n)+".json")
		path := filepath.Join(s.Dir, rel)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		_, err = f.Write(src)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(path, 0o444) // whatever the umask did
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return &PlanFile{N: n, Rel: filepath.ToSlash(rel), Path: path, SHA256: sha256.Sum256(src)}, nil
	}
}

// nextPlanNumber returns one more than the highest plan number in dir
// (1 for none): where the O_EXCL search starts.
func nextPlanNumber(dir string) int {
	ents, _ := os.ReadDir(dir)
	hi := 0
	for _, e := range ents {
		num, ok := strings.CutPrefix(e.Name(), "plan-")
		if num, ok2 := strings.CutSuffix(num, ".json"); ok && ok2 {
			if n, err := strconv.Atoi(num); err == nil && n > hi {
				hi = n
			}
		}
	}
	return hi + 1
}

// ReadPlan reads the plan back from its file (at most limit bytes; 0 for
// no limit) and checks its SHA-256 against the one taken when it was
// written: what runs is what the file holds, and a file changed in between
// refuses the plan.
func (s *Session) ReadPlan(p *PlanFile, limit int) ([]byte, error) {
	b, err := readLimited(p.Path, limit)
	if err != nil {
		return nil, err
	}
	if got := sha256.Sum256(b); got != p.SHA256 {
		return nil, fmt.Errorf("%s changed after it was written: its SHA-256 is %x, not %x; the plan is refused", p.Rel, got, p.SHA256)
	}
	return b, nil
}

// OpenExisting opens the session directory dir, which must already hold
// a session.json: a redrive runs in the session it redrives.
func OpenExisting(dir string) (*Session, error) {
	s, err := readSession(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no session at %s (it has no %s)", dir, sessionfmt.SessionFile)
	}
	return s, err
}

// LastPlan returns the highest plan number of the session's plan files,
// 0 when it has none.
func (s *Session) LastPlan() int {
	return nextPlanNumber(filepath.Join(s.Dir, sessionfmt.PlansDir)) - 1
}

// OpenPlan reads plan n's existing file back (at most limit bytes; 0 for
// no limit), for a redrive: its PlanFile, with the SHA-256 of the bytes
// read, and the bytes.
func (s *Session) OpenPlan(n, limit int) (*PlanFile, []byte, error) {
	rel := sessionfmt.PlanFile(n)
	p := &PlanFile{N: n, Rel: rel, Path: filepath.Join(s.Dir, filepath.FromSlash(rel))}
	b, err := readLimited(p.Path, limit)
	if err != nil {
		return nil, nil, err
	}
	p.SHA256 = sha256.Sum256(b)
	return p, b, nil
}

// readLimited reads the file at path, at most limit+1 bytes when limit is
// over 0 (so that a caller can tell a file over the limit).
func readLimited(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, int64(limit)+1)
	}
	return io.ReadAll(r)
}
