package shell

// The spawner's wire format (spawner_linux.go, spawnd_linux.go): compact
// and binary, little-endian, one request per SOCK_SEQPACKET message, one
// or more replies per message.
//
// A request is the request's id (8 bytes, not 0) and its operation (1
// byte). opSpawn, which comes with two descriptors (the step's output and
// its leaf cgroup), goes on with the file to run, the working directory,
// the argument count and the arguments, the variable count and the
// environment: a count is 4 bytes, a string its length (4 bytes) and its
// bytes, none of them NUL. opReap, with no descriptor, only has the
// spawner reap the processes that ended in its namespace.
//
// A reply is an id (8 bytes) and a kind (1 byte): replyReady (id 0) says
// the spawner serves; replyDone gives the step's wait status (4 bytes);
// replyFailed says why the step did not start, or why the spawner could
// not set up (id 0), as a string.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The operations of a request.
const (
	opSpawn = 1 // start a step
	opReap  = 2 // reap what ended
)

// The kinds of a reply.
const (
	replyReady  = 0
	replyDone   = 1
	replyFailed = 2
)

// maxReplyErr bounds the text of a replyFailed.
const maxReplyErr = 4 << 10

// spawnRequest asks the spawner to start one step, or to reap.
type spawnRequest struct {
	ID   uint64
	Op   byte
	File string
	Dir  string
	Argv []string
	Env  []string
}

// spawnReply is one reply of the spawner.
type spawnReply struct {
	ID     uint64
	Kind   byte
	Status uint32 // replyDone: the wait status
	Err    string // replyFailed: why
}

// appendRequest appends req, encoded, to b.
func appendRequest(b []byte, req spawnRequest) []byte {
	b = binary.LittleEndian.AppendUint64(b, req.ID)
	b = append(b, req.Op)
	if req.Op != opSpawn {
		return b
	}
	b = appendString(b, req.File)
	b = appendString(b, req.Dir)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(req.Argv)))
	for _, a := range req.Argv {
		b = appendString(b, a)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(req.Env)))
	for _, kv := range req.Env {
		b = appendString(b, kv)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// requestSize is the length of req encoded.
func requestSize(req spawnRequest) int {
	n := 9 + 8 + 8 + len(req.File) + len(req.Dir) + 4*(len(req.Argv)+len(req.Env))
	for _, a := range req.Argv {
		n += len(a)
	}
	for _, kv := range req.Env {
		n += len(kv)
	}
	return n
}

// decoder reads a message; its first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = errors.New(what)
	}
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail("the message ends early")
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u8() byte {
	if v := d.bytes(1); v != nil {
		return v[0]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if v := d.bytes(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if v := d.bytes(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// str reads a string, which may not hold a NUL (exec could not pass it).
func (d *decoder) str() string {
	n := d.u32()
	if uint64(n) > uint64(len(d.b)) {
		d.fail("the message ends early")
		return ""
	}
	v := d.bytes(int(n))
	if strings.IndexByte(string(v), 0) >= 0 {
		d.fail("a string holds a NUL byte")
	}
	return string(v)
}

// strs reads a count and that many strings.
func (d *decoder) strs() []string {
	n := d.u32()
	if uint64(n)*4 > uint64(len(d.b)) { // each string takes 4 bytes at least
		d.fail("a count exceeds the message")
		return nil
	}
	v := make([]string, 0, n)
	for range n {
		v = append(v, d.str())
	}
	return v
}

// decodeRequest decodes one request message. The ID it returns is the
// message's even when the rest is malformed, so that the error can go to
// the step that waits for it.
func decodeRequest(msg []byte) (spawnRequest, error) {
	d := decoder{b: msg}
	req := spawnRequest{ID: d.u64(), Op: d.u8()}
	switch {
	case d.err != nil:
	case req.ID == 0:
		d.fail("request id 0")
	case req.Op == opReap:
	case req.Op == opSpawn:
		req.File, req.Dir = d.str(), d.str()
		req.Argv = d.strs()
		req.Env = d.strs()
		if d.err == nil && (req.File == "" || len(req.Argv) == 0) {
			d.fail("no file or no argv[0]")
		}
	default:
		d.fail(fmt.Sprintf("unknown operation %d", req.Op))
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("bytes after the request")
	}
	if d.err != nil {
		return req, fmt.Errorf("malformed request to the spawner: %w", d.err)
	}
	return req, nil
}

// appendReply appends rep, encoded, to b.
func appendReply(b []byte, rep spawnReply) []byte {
	b = binary.LittleEndian.AppendUint64(b, rep.ID)
	b = append(b, rep.Kind)
	switch rep.Kind {
	case replyDone:
		b = binary.LittleEndian.AppendUint32(b, rep.Status)
	case replyFailed:
		msg := rep.Err
		if len(msg) > maxReplyErr {
			msg = msg[:maxReplyErr]
		}
		b = appendString(b, msg)
	}
	return b
}

// decodeReplies decodes one message of replies and calls each with every
// reply in turn.
func decodeReplies(msg []byte, each func(spawnReply)) error {
	d := decoder{b: msg}
	if len(msg) == 0 {
		return errors.New("malformed reply from the spawner: an empty message")
	}
	for len(d.b) > 0 && d.err == nil {
		rep := spawnReply{ID: d.u64(), Kind: d.u8()}
		switch rep.Kind {
		case replyReady:
		case replyDone:
			rep.Status = d.u32()
		case replyFailed:
			rep.Err = d.str()
		default:
			d.fail(fmt.Sprintf("unknown reply kind %d", rep.Kind))
		}
		if d.err == nil {
			each(rep)
		}
	}
	if d.err != nil {
		return fmt.Errorf("malformed reply from the spawner: %w", d.err)
	}
	return nil
}
