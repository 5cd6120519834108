package serve

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// maxProgressError is how much of a step's error a progress message
// quotes.
const maxProgressError = 200

// progress sends one notifications/progress per settled step of a plan,
// for the request that carried token: progress is the number of steps
// settled, total the plan's steps, the message the step and its status.
// It is fed by host.Config.Observe on the VM's goroutine and sends from a
// goroutine of its own, in order, so that the VM never waits for the
// client.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	// observe's state, on the VM's goroutine.
	total, settled int

	mu     sync.Mutex
	queue  []*mcp.ProgressNotificationParams
	closed bool
	wake   chan struct{} // a token when queue or closed changed
	done   chan struct{} // closed when send returns
}

// newProgress starts sending progress notifications over ss for the
// request with token; ctx is the request's.
func newProgress(ctx context.Context, ss *mcp.ServerSession, token any) *progress {
	p := &progress{ctx: ctx, session: ss, token: token, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.send()
	return p
}

// observe takes one VM event (host.Config.Observe). A plan_step that
// settles its step (Final) is one more step settled; one a retry follows
// (S19) is not.
func (p *progress) observe(_ *ir.Program, e vm.Event) {
	switch e.Kind {
	case vm.PlanStart:
		p.total = e.Steps
	case vm.PlanStep:
		if e.Final {
			p.queueSettled(e)
		}
	}
}

// queueSettled queues the notification of a settled step.
func (p *progress) queueSettled(e vm.Event) {
	p.settled++
	msg := fmt.Sprintf("%s: %s", e.StepID, e.Status)
	if e.Error != "" {
		msg += ": " + cut(firstLine(e.Error), maxProgressError)
	}
	n := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(p.settled), Total: float64(p.total), Message: msg}
	p.mu.Lock()
	p.queue = append(p.queue, n)
	p.mu.Unlock()
	p.signal()
}

// signal wakes send.
func (p *progress) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// send writes the queued notifications until close; one that fails (the
// client gone) is dropped, and none is sent once the client cancelled the
// request.
func (p *progress) send() {
	defer close(p.done)
	for {
		<-p.wake
		p.mu.Lock()
		batch, closed := p.queue, p.closed
		p.queue = nil
		p.mu.Unlock()
		for _, n := range batch {
			if p.ctx.Err() != nil {
				// The client cancelled the request: its token is no
				// longer in use, and MCP allows progress only for an
				// active request.
				continue
			}
			_ = p.session.NotifyProgress(p.ctx, n)
		}
		if closed {
			return
		}
	}
}

// close sends what is left and waits until it has been sent, so that no
// notification follows the call's result. A nil progress does nothing.
func (p *progress) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.signal()
	<-p.done
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// cut shortens s to at most n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
