package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// The tests of ServeStream speak raw JSON-RPC lines, as a client on the
// other end of `planc serve --mcp`'s standard input and output would. A
// plan is held running by a step of the test MCP server's wait tool
// reading a FIFO (built-in tools refuse FIFOs), until the test writes to
// it.

// stream is one ServeStream connection.
type stream struct {
	in     *io.PipeWriter
	lines  chan []byte   // what the server writes, closed when it is done
	served chan struct{} // closed when ServeStream returns err
	err    error
	stop   context.CancelFunc
}

// openStream serves cfg (WorkDir set) with ServeStream over pipes and
// performs the MCP handshake. Cleanup ends the input and waits for
// ServeStream to return.
func openStream(t *testing.T, cfg Config) *stream {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	s := &stream{in: inW, lines: make(chan []byte, 100), served: make(chan struct{}), stop: stop}
	go func() {
		s.err = New(cfg).ServeStream(ctx, inR, outW)
		outW.Close()
		close(s.served)
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- bytes.Clone(sc.Bytes())
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		for range s.lines {
		}
		select {
		case <-s.served:
		case <-time.After(30 * time.Second):
			t.Error("ServeStream did not return once its input ended")
		}
		stop()
		inR.Close()
	})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if a := s.next(t); string(a.ID) != "1" || a.Error != nil {
		t.Fatalf("initialize: %s", a.line)
	}
	return s
}

// send writes lines to the server's input.
func (s *stream) send(t *testing.T, lines ...string) {
	t.Helper()
	if _, err := io.WriteString(s.in, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
}

// answer is one line the server wrote, decoded as a response.
type answer struct {
	line   []byte
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool      `json:"isError"`
		StructuredContent vm.Report `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next returns the next line the server writes.
func (s *stream) next(t *testing.T) answer {
	t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			t.Fatal("the server's output ended")
		}
		a := answer{line: l}
		if err := json.Unmarshal(l, &a); err != nil && !bytes.HasPrefix(l, []byte("[")) {
			t.Fatalf("the server wrote %s: %v", l, err)
		}
		return a
	case <-time.After(60 * time.Second):
		t.Fatal("no answer")
	}
	return answer{}
}

// rest ends the input and returns every line the server writes until
// ServeStream returns, and its error.
func (s *stream) rest(t *testing.T) ([]answer, error) {
	t.Helper()
	s.in.Close()
	var out []answer
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				<-s.served
				return out, s.err
			}
			a := answer{line: l}
			json.Unmarshal(l, &a)
			out = append(out, a)
		case <-time.After(60 * time.Second):
			t.Fatal("ServeStream did not return")
		}
	}
}

// heldPlan reads the FIFO "fifo" with the test MCP server's wait tool,
// then notes what it read.
const heldPlan = `{"id": "held", "steps": [
	{"id": "wait", "tool": "wait", "input": {"path": "fifo"}},
	{"id": "after", "tool": "notes", "depends_on": ["wait"], "input": {"body": "$wait.output"}}]}`

// submit is a tools/call line of submit-plan with plan as its arguments.
func submit(id, plan string) string {
	return toolCall(id, SubmitPlan, plan)
}

// toolCall is a tools/call line.
func toolCall(id, tool, plan string) string {
	var b bytes.Buffer
	json.Compact(&b, []byte(plan))
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + b.String() + `}}`
}

// waitManifest is mcpManifest, parsed, with its MCP server started in
// dir, where holdPlan makes the FIFO.
func waitManifest(t *testing.T, dir string) *ast.Manifest {
	t.Helper()
	m, ds := parser.ParseManifest([]byte(mcpManifest(t)), parser.DefaultLimits())
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	return m
}

// holdPlan makes dir/fifo, submits heldPlan as call id, and returns the
// FIFO's write end once the plan's first step is waiting on it.
func holdPlan(t *testing.T, s *stream, dir, id string) *os.File {
	t.Helper()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	s.send(t, submit(id, heldPlan))
	var f *os.File
	testkit.Eventually(t, 0, "the plan's step to open the FIFO", func() bool {
		var err error
		f, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil && !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
		return err == nil
	})
	t.Cleanup(func() { f.Close() })
	return f
}

// release lets the held step read text and finish.
func release(t *testing.T, w *os.File, text string) {
	t.Helper()
	if _, err := w.WriteString(text); err != nil {
		t.Fatal(err)
	}
	w.Close()
}

// TestStreamSurvivesBadFrames: while a plan runs, every frame that is no
// JSON-RPC message gets its error and is skipped (a 100 MB line too); a
// batch is answered as an array; the call after them and the running
// plan are answered as if nothing had happened.
func TestStreamSurvivesBadFrames(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var notes []string
	s := openStream(t, Config{WorkDir: dir, Env: capenv.New(waitManifest(t, dir), capenv.WorkDir(dir)), Notice: func(n string) {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(n, "line ") {
			notes = append(notes, n)
		}
	}})
	w := holdPlan(t, s, dir, "2")

	for _, c := range []struct {
		frame, id string
		code      int64
	}{
		{"garbage", "null", -32700},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"`, "null", -32700},
		{"null", "null", -32600},
		{"[]", "null", -32600},
		{"42", "null", -32600},
		{`"ping"`, "null", -32600},
		{"{}", "null", -32600},
		{`{"jsonrpc":"2.0"}`, "null", -32600},
		{`{"id":5,"method":"ping"}`, "5", -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, "null", -32600},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "null", -32600}, // the id of the running call
	} {
		s.send(t, c.frame)
		if a := s.next(t); string(a.ID) != c.id || a.Error == nil || a.Error.Code != c.code {
			t.Errorf("%s: answered %s; want id %s and code %d", c.frame, a.line, c.id, c.code)
		}
	}

	// A 100 MB line: its id is read from its start.
	big := &lineOf{head: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"check-plan","arguments":{"id":"`, fill: 'x', n: 100_000_000, tail: `","steps":[]}}}`}
	if _, err := io.Copy(s.in, big); err != nil {
		t.Fatal(err)
	}
	if a := s.next(t); string(a.ID) != "6" || a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "100000") {
		t.Errorf("the 100 MB line: answered %s", a.line)
	}

	// A batch: a member that is no message, and a ping.
	s.send(t, `[1,{"jsonrpc":"2.0","id":9,"method":"ping"}]`)
	var batch []answer
	if a := s.next(t); json.Unmarshal(a.line, &batch) != nil || len(batch) != 2 ||
		string(batch[0].ID) != "null" || batch[0].Error == nil || string(batch[1].ID) != "9" || batch[1].Error != nil {
		t.Errorf("the batch: answered %s", a.line)
	}

	s.send(t, toolCall("3", CheckPlan, `{"id": "c", "steps": [{"id": "n", "tool": "notes", "input": {"body": "x"}}]}`))
	if a := s.next(t); string(a.ID) != "3" || a.Result == nil || a.Result.IsError {
		t.Errorf("check-plan after the bad frames: %s", a.line)
	}

	release(t, w, "done")
	a := s.next(t)
	want := vm.Report{PlanID: "held", Completed: true, Steps: []vm.StepReport{
		{StepID: "wait", Status: vm.StatusSuccess, Output: ptr("done")},
		{StepID: "after", Status: vm.StatusSuccess, Output: ptr("appended 5 bytes to notes.md")},
	}}
	if string(a.ID) != "2" || a.Result == nil || a.Result.IsError || !reportsEqual(a.Result.StructuredContent, want) {
		t.Errorf("the running plan: answered %s", a.line)
	}
	rest, err := s.rest(t)
	if err != nil || len(rest) > 0 {
		t.Errorf("at the end of the input: %v, and %d more lines", err, len(rest))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 13 || !strings.HasPrefix(notes[0], "line 4: parse error: ") {
		t.Errorf("notes for the operator: %q", notes)
	}
}

// linesOf is the lines of answers, one a line.
func linesOf(as []answer) string {
	var b strings.Builder
	for _, a := range as {
		b.Write(a.line)
		b.WriteByte('\n')
	}
	return b.String()
}

// reportsEqual compares two reports.
func reportsEqual(a, b vm.Report) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestStreamEndAnswersEveryCall: the input ends while a plan runs and a
// check-plan call has just been read. The check is answered, the plan is
// cancelled (its running tool call, blocked, is ended when its grace
// runs out, vm.DefaultToolGrace; the next step is skipped)
// and answered with its cancelled report, and then ServeStream returns
// nil.
func TestStreamEndAnswersEveryCall(t *testing.T) {
	dir := t.TempDir()
	s := openStream(t, Config{WorkDir: dir, Env: capenv.New(waitManifest(t, dir), capenv.WorkDir(dir))})
	w := holdPlan(t, s, dir, "2")
	s.send(t, toolCall("3", CheckPlan, heldPlan))
	s.in.Close()
	if a := s.next(t); string(a.ID) != "3" || a.Result == nil || a.Result.IsError {
		t.Errorf("the check read before the end: %s", a.line)
	}
	sess := waitSession(t, dir)
	// The step after, skipped, and the running call, ended after its
	// grace: both settle without the FIFO being written.
	testkit.WaitEvent(t, filepath.Join(sess, "trace.jsonl"), "plan_step", 2)
	release(t, w, "late")
	rest, err := s.rest(t)
	if err != nil || len(rest) != 1 {
		t.Fatalf("ServeStream returned %v after %d lines", err, len(rest))
	}
	want := vm.Report{PlanID: "held", Canceled: true, Steps: []vm.StepReport{ // in settle order
		{StepID: "after", Status: vm.StatusSkipped, Error: ptr(vm.CanceledBeforeRun)},
		{StepID: "wait", Status: vm.StatusFailed, Error: ptr(vm.ToolEnded)},
	}}
	if a := rest[0]; string(a.ID) != "2" || a.Result == nil || !a.Result.IsError || !reportsEqual(a.Result.StructuredContent, want) {
		t.Errorf("the cancelled plan: answered %s", a.line)
	}
}

// TestStreamCancelledCallUnanswered: a call the client cancels
// (notifications/cancelled) gets no response: its plan is cancelled, its
// report goes to the trace, and the connection goes on.
func TestStreamCancelledCallUnanswered(t *testing.T) {
	dir := t.TempDir()
	s := openStream(t, Config{WorkDir: dir, Env: capenv.New(waitManifest(t, dir), capenv.WorkDir(dir))})
	w := holdPlan(t, s, dir, `"plan-a"`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"plan-a","reason":"enough"}}`)
	sess := waitSession(t, dir)
	trace := filepath.Join(sess, "trace.jsonl")
	testkit.WaitEvent(t, trace, "plan_step", 1) // the step after, skipped
	release(t, w, "late")
	testkit.WaitEvent(t, trace, "session_end", 1)
	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	rest, err := s.rest(t)
	if err != nil || len(rest) != 1 || string(rest[0].ID) != "3" {
		t.Errorf("after the cancel the server wrote\n%s(ServeStream: %v)", linesOf(rest), err)
	}
	var end string
	for _, l := range testkit.TraceLines(t, trace) {
		if l["event"] == "plan_end" {
			end = str(l["outcome"])
		}
	}
	if end != "canceled" {
		t.Errorf("plan_end %q in the trace, want canceled", end)
	}
}

// TestStreamContextEnds: cancelling ServeStream's context ends the input
// as its end does: the running plan is cancelled and answered, lines sent
// after are not read, and ServeStream returns the context's error.
func TestStreamContextEnds(t *testing.T) {
	dir := t.TempDir()
	s := openStream(t, Config{WorkDir: dir, Env: capenv.New(waitManifest(t, dir), capenv.WorkDir(dir))})
	w := holdPlan(t, s, dir, "2")
	s.stop()
	sess := waitSession(t, dir)
	testkit.WaitEvent(t, filepath.Join(sess, "trace.jsonl"), "plan_step", 1) // the step after, skipped
	s.send(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	release(t, w, "late")
	rest, err := s.rest(t)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ServeStream returned %v", err)
	}
	if len(rest) != 1 || string(rest[0].ID) != "2" || rest[0].Result == nil || !rest[0].Result.StructuredContent.Canceled {
		t.Errorf("after the context ended the server wrote\n%s", linesOf(rest))
	}
}
