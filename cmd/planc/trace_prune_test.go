package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/testkit"
)

// TestTracePrune: planc trace prune --older-than D removes the sessions
// that started more than D ago, never one whose plan a planc is running
// (its lock held), nor a newer session or a directory that is not one.
func TestTracePrune(t *testing.T) {
	root := inTempDir(t, nil)
	sessions := filepath.Join(root, ".planc", "sessions")
	const old, running = "20200101T000000Z-aaaaaa", "20200102T000000Z-bbbbbb"
	young := time.Now().UTC().Add(-time.Hour).Format("20060102T150405Z") + "-cccccc"
	for _, id := range []string{old, running, young} {
		testkit.WriteFiles(t, filepath.Join(sessions, id), "trace.jsonl", traceLine(0, "session_start", id, "capsule", "local/planc", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil))
	}
	testkit.WriteFiles(t, sessions, "not-a-session/x.txt", "x")
	lock, err := (&session.Session{Dir: filepath.Join(sessions, running)}).LockPlan(1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()

	got := run(t, "", "trace", "prune", "--older-than", "7d")
	if got.Code != 0 || got.Stdout != "removed "+filepath.Join(".planc", "sessions", old)+"\n" ||
		got.Stderr != "planc trace: kept "+running+": a planc is running its plan 1\n" {
		t.Errorf("prune: %+v", got)
	}
	for id, want := range map[string]bool{old: false, running: true, young: true, "not-a-session": true} {
		if _, err := os.Stat(filepath.Join(sessions, id)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", id, err == nil, want)
		}
	}
	for _, args := range [][]string{{"prune"}, {"prune", "--older-than", "soon"}, {"list", "--older-than", "1d"}} {
		if got := run(t, "", append([]string{"trace"}, args...)...); got.Code != 2 || !strings.Contains(got.Stderr, "older-than") {
			t.Errorf("trace %v: %+v", args, got)
		}
	}
}
