// Package tracetest writes the traces and session directories the tests
// of tracefile and traceview read.
package tracetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/tracefile"
)

// SessionID is the session id of the tests' traces.
const SessionID = "20250102T150405Z-a1b2c3"

// Line writes one trace line as docs/trace.md's table has it: ts, event and
// session first, then the event's own fields in the order given
// (name, value, name, value, …), compact, ending in "\n".
func Line(ts, event, session string, fields ...any) string {
	var b strings.Builder
	b.WriteString(`{"ts":`)
	b.Write(mustJSON(ts))
	b.WriteString(`,"event":`)
	b.Write(mustJSON(event))
	b.WriteString(`,"session":`)
	b.Write(mustJSON(session))
	for i := 0; i+1 < len(fields); i += 2 {
		fmt.Fprintf(&b, ",%s:%s", mustJSON(fields[i]), mustJSON(fields[i+1]))
	}
	b.WriteString("}\n")
	return b.String()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TS returns the trace time of second s after a fixed moment.
func TS(s float64) string {
	return fmt.Sprintf("2025-01-02T15:04:%012.9fZ", 5+s)
}

// Write writes files (path relative to dir → content) under dir.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// SessionJSON is a session.json as host writes it.
func SessionJSON(id, capsule, spawnedBy, delegationID string) string {
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return string(mustJSON(map[string]any{
		"session": id, "capsule": capsule, "version": "0.1.0", "started": "2025-01-02T15:04:05Z",
		"spawned_by": nullable(spawnedBy), "delegation_id": nullable(delegationID),
	})) + "\n"
}

// FromText reads the trace src, which must read without notes, into a
// Session.
func FromText(t testing.TB, src string) *tracefile.Session {
	t.Helper()
	events, ns, err := tracefile.Read(strings.NewReader(src))
	if err != nil || len(ns) > 0 {
		t.Fatalf("read: %v %v", err, ns)
	}
	return tracefile.FromEvents(events)
}
