package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/internal/interrupt"
)

// The stdio connection of `planc serve --mcp`. The SDK's IOTransport ends
// the connection on the first frame it cannot decode and, at the end of
// its input, cancels every call and writes no further response; planc
// wants neither. streamConn is an mcp.Connection of its own in front of
// the SDK's JSON-RPC layer: it reads one message per line, answers a
// frame that is no message itself and goes on, holds the end of the input
// back from the SDK until every call read has been answered, and drops
// the response to a call the client cancelled (docs/serve.md).

// MCP methods streamConn looks at.
const (
	methodCancelled  = "notifications/cancelled"
	methodInitialize = "initialize"
	// methodListen is a call that lasts until it is cancelled; the end of
	// the input does not wait for it.
	methodListen = "subscriptions/listen"
)

// MaxBatch is the most messages one JSON-RPC batch may hold. A longer
// batch is answered with one error and skipped, none of its messages run:
// the answers to a batch are written together, so each of its calls holds
// its answer until the last is answered.
var MaxBatch = 64

// MaxBatchAnswers bounds the bytes of the answers one connection holds
// for its batches not yet written. An answer that would pass it is
// replaced in its batch's array by an error with the call's id saying so,
// and is dropped.
var MaxBatchAnswers = 32 << 20

// streamTransport is the mcp.Transport of one streamConn.
type streamTransport struct{ c *streamConn }

// Connect returns the connection and starts reading its input.
func (t *streamTransport) Connect(context.Context) (mcp.Connection, error) {
	go t.c.readLines()
	return t.c, nil
}

// streamConn is one newline-delimited JSON-RPC connection over a reader
// and a writer.
type streamConn struct {
	in     *frameReader
	out    io.Writer
	notice func(string) // nil drops the notes
	onEnd  func()       // called once when the input ends
	// stop, once done, ends the input too; Read checks it before it reads a
	// line, since the AfterFunc that ends the input runs later.
	stop context.Context

	wmu  sync.Mutex // one message at a time on out
	gone bool       // out is a pipe no one reads any more: nothing more is written

	lines   chan line         // from readLines to Read
	queue   []jsonrpc.Message // the rest of a batch, for Read
	closed  chan struct{}     // closed by Close
	closing sync.Once
	drained chan struct{} // closed once the input ended and every call is answered

	maxBatch int // MaxBatch and MaxBatchAnswers when the connection was made
	maxHeld  int

	mu      sync.Mutex
	calls   map[jsonrpc.ID]*call // read, not yet answered
	held    int                  // bytes of the answers batches hold
	waiting int                  // of calls, those the end of the input waits for
	ended   bool                 // the input ended: no line is read any more
	endErr  error                // what Read returns once drained: io.EOF or the read error
	isDrain bool                 // drained is closed
}

// line is one line of input, or the error that ended it.
type line struct {
	text []byte
	n    int64 // its length, over MaxFrame when text is only its start
	no   int
	err  error
}

// call is a request read and not yet answered.
type call struct {
	method    string
	batch     *batch // the batch it came in, nil for a line of its own
	cancelled bool   // the client sent notifications/cancelled for it
}

// batch collects the answers to one JSON-RPC batch, which are written
// together as one array once its last call is answered.
type batch struct {
	left int               // its calls not yet answered
	out  []json.RawMessage // the answers so far, each one line of JSON
}

// newStreamConn reads frames of at most max bytes from in and writes to
// out; onEnd runs once when the input ends (its end, a read error, or
// endInput).
func newStreamConn(in io.Reader, out io.Writer, max int, notice func(string), onEnd func()) *streamConn {
	return &streamConn{
		in: newFrameReader(in, max), out: out, notice: notice, onEnd: onEnd,
		lines: make(chan line), closed: make(chan struct{}), drained: make(chan struct{}),
		calls: map[jsonrpc.ID]*call{}, maxBatch: MaxBatch, maxHeld: MaxBatchAnswers,
	}
}

// readLines hands the input's lines to Read until it ends or the
// connection closes.
func (c *streamConn) readLines() {
	for {
		text, n, no, err := c.in.next()
		select {
		case c.lines <- line{text: text, n: n, no: no, err: err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message for the SDK. Frames that are no message
// are answered here and skipped. Once the input has ended, Read returns
// io.EOF (or the read error) only when every call read has been answered.
func (c *streamConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.drained:
			return nil, c.endErr
		case l := <-c.lines:
			switch {
			case l.err != nil:
				c.endInput(l.err)
			case c.hasEnded(): // ended by endInput: the line is not read
			case c.stop != nil && c.stop.Err() != nil:
				c.endInput(io.EOF) // the line is not read either
			default:
				c.queue = c.frame(l)
			}
		}
	}
}

// endInput ends the input as its end would: no line is read any more,
// onEnd runs, and Read returns err once every call read is answered.
func (c *streamConn) endInput(err error) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended, c.endErr = true, err
	c.drainIfDone()
	c.mu.Unlock()
	c.onEnd()
}

// hasEnded reports whether the input has ended.
func (c *streamConn) hasEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// drainIfDone closes drained once the input has ended and no call is
// waiting for its answer. c.mu is held.
func (c *streamConn) drainIfDone() {
	if c.ended && c.waiting == 0 && !c.isDrain {
		c.isDrain = true
		close(c.drained)
	}
}

// frame returns the messages of one line for the SDK, having answered
// what in it is no message.
func (c *streamConn) frame(l line) []jsonrpc.Message {
	switch {
	case l.n > int64(c.in.max):
		c.refuse(l.no, tooLarge(l.text, l.n, c.in.max))
		return nil
	case !json.Valid(l.text):
		c.refuse(l.no, notJSON(l.text))
		return nil
	case kindOf(l.text) == '[':
		return c.batchFrame(l)
	}
	msg, r := decodeMessage(l.text)
	if r == nil {
		r = c.register(msg, nil)
	}
	if r != nil {
		c.refuse(l.no, r)
		return nil
	}
	return []jsonrpc.Message{msg}
}

// batchFrame returns the messages of a JSON-RPC batch. Its members that
// are no message are answered in the batch's array of answers.
func (c *streamConn) batchFrame(l line) []jsonrpc.Message {
	var members []json.RawMessage
	if err := json.Unmarshal(l.text, &members); err != nil || len(members) == 0 {
		c.refuse(l.no, newReply(nullID, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch holds no message; send a request or notification"))
		return nil
	}
	if len(members) > c.maxBatch {
		c.refuse(l.no, newReply(nullID, jsonrpc.CodeInvalidRequest,
			"invalid request: the batch holds %d messages, over the limit of %d in one batch; it was skipped and none of its messages ran: send at most %d messages per batch, or one per line",
			len(members), c.maxBatch, c.maxBatch))
		return nil
	}
	b := &batch{}
	var msgs []jsonrpc.Message
	for _, m := range members {
		msg, r := decodeMessage(m)
		if r == nil {
			r = c.register(msg, b)
		}
		if r == nil {
			msgs = append(msgs, msg)
			continue
		}
		c.note(l.no, r)
		c.mu.Lock()
		b.out = append(b.out, r.encode())
		c.held += len(b.out[len(b.out)-1])
		c.mu.Unlock()
	}
	c.batchAnswer(b, nil, jsonrpc.ID{}, false)
	return msgs
}

// register notes msg before the SDK sees it: a call is waited for, a
// cancellation marks its call. A call whose id is in use gets an answer.
func (c *streamConn) register(msg jsonrpc.Message, b *batch) *reply {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		if _, dup := c.calls[req.ID]; dup {
			return newReply(nullID, jsonrpc.CodeInvalidRequest,
				"invalid request: the id %v is that of a call not yet answered; give each request an id of its own", req.ID.Raw())
		}
		c.calls[req.ID] = &call{method: req.Method, batch: b}
		if req.Method != methodListen {
			c.waiting++
		}
		if b != nil {
			b.left++
		}
		return nil
	}
	if req.Method == methodCancelled {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.calls[id] != nil && c.calls[id].method != methodInitialize {
				c.calls[id].cancelled = true
			}
		}
	}
	return nil
}

// Write writes msg, the answer to a call as the call came: on a line of
// its own, in its batch's array, or not at all when the client cancelled
// the call (the MCP specification: receivers of a cancellation should not
// answer the cancelled request).
func (c *streamConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeLine(data)
	}
	c.mu.Lock()
	cl := c.calls[resp.ID]
	delete(c.calls, resp.ID)
	c.mu.Unlock()
	if cl == nil {
		return c.writeLine(data)
	}
	defer c.answered(cl)
	if cl.cancelled {
		data = nil
	}
	switch {
	case cl.batch != nil:
		return c.batchAnswer(cl.batch, data, resp.ID, true)
	case data == nil:
		return nil
	default:
		return c.writeLine(data)
	}
}

// answered counts cl answered, once its answer is written.
func (c *streamConn) answered(cl *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl.method != methodListen {
		c.waiting--
	}
	c.drainIfDone()
}

// batchAnswer adds answer (nil: none) to b's answers, counts one of its
// calls answered when ofCall, and writes b's array once no call of b is
// left unanswered. An answer that would take the bytes the connection's
// batches hold past maxHeld is replaced by an error with the call's id.
func (c *streamConn) batchAnswer(b *batch, answer json.RawMessage, id jsonrpc.ID, ofCall bool) error {
	c.mu.Lock()
	if answer != nil && c.held+len(answer) > c.maxHeld {
		rawID, err := json.Marshal(id.Raw())
		if err != nil {
			rawID = nullID
		}
		answer = newReply(rawID, jsonrpc.CodeInternalError,
			"the answer to this call (%d bytes) was dropped: the answers held for batches would pass %d bytes; send the call again on a line of its own",
			len(answer), c.maxHeld).encode()
	}
	if answer != nil {
		b.out = append(b.out, answer)
		c.held += len(answer)
	}
	if ofCall {
		b.left--
	}
	done, out := b.left == 0, b.out
	if done {
		for _, a := range out {
			c.held -= len(a)
		}
		b.out = nil
	}
	c.mu.Unlock()
	if !done || len(out) == 0 {
		return nil
	}
	arr, err := marshal(out)
	if err != nil {
		return fmt.Errorf("encoding a batch's answers: %w", err)
	}
	return c.writeLine(arr)
}

// refuse answers a frame that is no message and notes it for the
// operator.
func (c *streamConn) refuse(no int, r *reply) {
	c.note(no, r)
	if err := c.writeLine(r.encode()); err != nil {
		c.note(no, newReply(nullID, 0, "the answer could not be written: %v", err))
	}
}

// note tells the operator that line no was answered with r.
func (c *streamConn) note(no int, r *reply) {
	if c.notice != nil {
		c.notice(fmt.Sprintf("line %d: %s", no, r.Error.Message))
	}
}

// writeLine writes data and a newline as one write. Once out is a pipe
// no one reads (the client went away without closing its end of the
// input), the input ends as its end would — the running plans are
// cancelled and wind down, their trace ends — and nothing more is written.
func (c *streamConn) writeLine(data []byte) error {
	b := make([]byte, 0, len(data)+1)
	b = append(append(b, data...), '\n')
	c.wmu.Lock()
	if c.gone {
		c.wmu.Unlock()
		return nil
	}
	_, err := c.out.Write(b)
	first := err != nil && interrupt.BrokenPipe(err) // c.gone was false
	if first {
		c.gone = true
	}
	c.wmu.Unlock()
	if first {
		if c.notice != nil {
			c.notice("standard output is closed: the client went away; running plans are cancelled, and nothing more is written")
		}
		c.endInput(io.EOF)
		return nil
	}
	return err
}

// Close closes the connection; Read returns io.EOF. The reader and
// writer stay open: they are standard input and output.
func (c *streamConn) Close() error {
	c.closing.Do(func() { close(c.closed) })
	return nil
}

// SessionID is "": stdio has no session id.
func (c *streamConn) SessionID() string { return "" }
