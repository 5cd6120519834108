package testkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TSPattern is a trace line's ts: RFC 3339 in UTC with nine digits of
// nanoseconds.
var TSPattern = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`)

// ReadTrace reads the trace file at path and returns each line as written
// and decoded. The test fails at once on a line that is not one JSON
// object, and is marked failed for a line whose ts is not of TSPattern's
// form or that lacks event or session.
func ReadTrace(t testing.TB, path string) (raw []string, lines []map[string]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: trace line %d is not JSON: %v\n%s", path, len(raw)+1, err, sc.Text())
		}
		if ts, _ := m["ts"].(string); !TSPattern.MatchString(ts) {
			t.Errorf("%s: trace line %d: ts %q is not RFC 3339 UTC with nanoseconds", path, len(raw)+1, m["ts"])
		}
		if m["event"] == nil || m["session"] == nil {
			t.Errorf("%s: trace line %d lacks event or session: %s", path, len(raw)+1, sc.Text())
		}
		raw = append(raw, sc.Text())
		lines = append(lines, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return raw, lines
}

// TraceLines is ReadTrace's decoded lines.
func TraceLines(t testing.TB, path string) []map[string]any {
	t.Helper()
	_, lines := ReadTrace(t, path)
	return lines
}

// Events returns each line's event, followed by ":" and its exit_status
// on a session_end line (session_end:ok).
func Events(lines []map[string]any) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		e, _ := l["event"].(string)
		if s, ok := l["exit_status"].(string); ok {
			e += ":" + s
		}
		out = append(out, e)
	}
	return out
}

// SessionID is the session id on the first line of the trace of the
// session directory sess.
func SessionID(t testing.TB, sess string) string {
	t.Helper()
	lines := TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	if len(lines) == 0 {
		t.Fatalf("%s: the trace is empty", sess)
	}
	id, _ := lines[0]["session"].(string)
	return id
}

// WaitEvent waits (Patience) until the trace at path has n lines of
// event, and returns its lines; the test fails when they do not come.
func WaitEvent(t testing.TB, path, event string, n int) []map[string]any {
	t.Helper()
	var b []byte
	if !Within(0, func() bool {
		b, _ = os.ReadFile(path)
		return bytes.Count(b, []byte(`"event":"`+event+`"`)) >= n
	}) {
		t.Fatalf("no %d %s lines in %s:\n%s", n, event, path, b)
	}
	return TraceLines(t, path)
}
