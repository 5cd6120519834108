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

// TestTracePruneOnlySessions: prune removes only directories named as
// sessions are, <UTC time>-<6 hex digits>, not one whose name merely
// starts with such a time; and an age too long to count (a number of
// days past what a duration holds, which used to wrap around and make
// every session old enough, today's too) is refused, removing nothing.
func TestTracePruneOnlySessions(t *testing.T) {
	root := inTempDir(t, nil)
	sessions := filepath.Join(root, ".planc", "sessions")
	const old = "20200101T000000Z-aaaaaa"
	young := time.Now().UTC().Format("20060102T150405Z") + "-cccccc"
	kept := []string{"20200101T000000Z-backup", "20200101T000000Zkeep", "20200101T000000Z-aaaaaa0", "20200101T000000Z-AAAAAA", "20200101T000000Z"}
	for _, id := range append([]string{old, young}, kept...) {
		testkit.WriteFiles(t, filepath.Join(sessions, id), "trace.jsonl", traceLine(0, "session_start", id, "capsule", "local/planc", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil))
	}
	if got := run(t, "", "trace", "prune", "--older-than", "365000d"); got.Code != 2 || got.Stdout != "" || !strings.Contains(got.Stderr, "at most 106751d") {
		t.Errorf("prune --older-than 365000d: %+v", got)
	}
	for _, id := range append([]string{old, young}, kept...) {
		if _, err := os.Stat(filepath.Join(sessions, id)); err != nil {
			t.Errorf("%s removed by a refused prune: %v", id, err)
		}
	}
	got := run(t, "", "trace", "prune", "--older-than", "7d")
	if got.Code != 0 || got.Stdout != "removed "+filepath.Join(".planc", "sessions", old)+"\n" || got.Stderr != "" {
		t.Errorf("prune: %+v", got)
	}
	for _, id := range append([]string{young}, kept...) {
		if _, err := os.Stat(filepath.Join(sessions, id)); err != nil {
			t.Errorf("%s: %v, want it kept", id, err)
		}
	}
}
