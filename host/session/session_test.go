package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
)

func TestCreate(t *testing.T) {
	root := filepath.Join(t.TempDir(), DefaultSessionsDir)
	s, err := Create(root, sessionfmt.SessionInfo{Capsule: "local/planc", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.Dir) != root || filepath.Base(s.Dir) != s.Info.ID {
		t.Errorf("session directory %s, id %s", s.Dir, s.Info.ID)
	}
	if !regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$`).MatchString(s.Info.ID) {
		t.Errorf("session id %q is not <UTC time>-<6 hex>", s.Info.ID)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, sessionfmt.SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"session", "capsule", "version", "started", "spawned_by", "delegation_id"} {
		if _, ok := m[k]; !ok {
			t.Errorf("session.json lacks %q: %s", k, b)
		}
	}
	for _, d := range []string{sessionfmt.PlansDir, sessionfmt.OutputsDir} {
		if fi, err := os.Stat(filepath.Join(s.Dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v", d, err)
		}
	}
	// Reusing it reads the same session.
	s2, err := Open(s.Dir, sessionfmt.SessionInfo{Capsule: "local/other"})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Info != s.Info {
		t.Errorf("reused session %+v, want %+v", s2.Info, s.Info)
	}
}

// TestOpenRace: runs opening one new --session directory at once
// agree on one session id.
func TestOpenRace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			s, err := Open(dir, sessionfmt.SessionInfo{Capsule: "local/planc"})
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = s.Info.ID
		})
	}
	wg.Wait()
	if ids[0] == "" || slices.ContainsFunc(ids, func(id string) bool { return id != ids[0] }) {
		t.Errorf("ids %v differ", ids)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".session-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWritePlan(t *testing.T) {
	s, err := Create(t.TempDir(), sessionfmt.SessionInfo{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	got := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			pf, err := s.WritePlan([]byte(`{"id": "p"}`))
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = pf.N
			if pf.Rel != "plans/plan-"+strconv.Itoa(pf.N)+".json" {
				t.Errorf("Rel %q", pf.Rel)
			}
		})
	}
	wg.Wait()
	slices.Sort(got)
	for i, g := range got {
		if g != i+1 {
			t.Fatalf("plan numbers %v, want 1…%d each once", got, n)
		}
	}
	pf, err := s.WritePlan([]byte("plan text"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(pf.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Errorf("plan file mode %v, want 0444", fi.Mode().Perm())
	}
	b, err := s.ReadPlan(pf, 0)
	if err != nil || string(b) != "plan text" {
		t.Fatalf("ReadPlan: %q, %v", b, err)
	}
	// A file changed after it was written is refused.
	if err := os.Chmod(pf.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pf.Path, []byte("plan texT"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadPlan(pf, 0); err == nil || !strings.Contains(err.Error(), "changed after it was written") {
		t.Errorf("ReadPlan of a changed file: %v", err)
	}
}
