package shim

// The spawner's wire format (spawner_linux.go, spawnd_linux.go): compact
// and binary, little-endian, one request per SOCK_SEQPACKET message, one
// or more replies per message.
//
// A request is the request's id (8 bytes, not 0) and its operation (1
// byte). OpSpawn, which comes with two descriptors (the step's output and
// its leaf cgroup), goes on with the file to run, the working directory,
// the argument count and the arguments, the variable count and the
// environment: a count is 4 bytes, a string its length (4 bytes) and its
// bytes, none of them NUL. OpReap, with no descriptor, only has the
// spawner reap the processes that ended in its namespace.
//
// A reply is an id (8 bytes) and a kind (1 byte): ReplyReady (id 0) says
// the spawner serves; ReplyDone gives the step's wait status (4 bytes);
// ReplyFailed says why the step did not start, or why the spawner could
// not set up (id 0), as a string.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The operations of a request.
const (
	OpSpawn = 1 // start a step
	OpReap  = 2 // reap what ended
)

// The kinds of a reply.
const (
	ReplyReady  = 0
	ReplyDone   = 1
	ReplyFailed = 2
)

// MaxReplyErr bounds the text of a ReplyFailed.
const MaxReplyErr = 4 << 10

// Request asks the spawner to start one step, or to reap.
type Request struct {
	ID   uint64
	Op   byte
	File string
	Dir  string
	Argv []string
	Env  []string
}

// Reply is one reply of the spawner.
type Reply struct {
	ID     uint64
	Kind   byte
	Status uint32 // ReplyDone: the wait status
	Err    string // ReplyFailed: why
}

// AppendRequest appends req, encoded, to b.
func AppendRequest(b []byte, req Request) []byte {
	b = binary.LittleEndian.AppendUint64(b, req.ID)
	b = append(b, req.Op)
	if req.Op != OpSpawn {
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

// RequestSize is the length of req encoded.
func RequestSize(req Request) int {
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

// DecodeRequest decodes one request message. The ID it returns is the
// message's even when the rest is malformed, so that the error can go to
// the step that waits for it.
func DecodeRequest(msg []byte) (Request, error) {
	d := decoder{b: msg}
	req := Request{ID: d.u64(), Op: d.u8()}
	switch {
	case d.err != nil:
	case req.ID == 0:
		d.fail("request id 0")
	case req.Op == OpReap:
	case req.Op == OpSpawn:
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

// AppendReply appends rep, encoded, to b.
func AppendReply(b []byte, rep Reply) []byte {
	b = binary.LittleEndian.AppendUint64(b, rep.ID)
	b = append(b, rep.Kind)
	switch rep.Kind {
	case ReplyDone:
		b = binary.LittleEndian.AppendUint32(b, rep.Status)
	case ReplyFailed:
		msg := rep.Err
		if len(msg) > MaxReplyErr {
			msg = msg[:MaxReplyErr]
		}
		b = appendString(b, msg)
	}
	return b
}

// DecodeReplies decodes one message of replies and calls each with every
// reply in turn.
func DecodeReplies(msg []byte, each func(Reply)) error {
	d := decoder{b: msg}
	if len(msg) == 0 {
		return errors.New("malformed reply from the spawner: an empty message")
	}
	for len(d.b) > 0 && d.err == nil {
		rep := Reply{ID: d.u64(), Kind: d.u8()}
		switch rep.Kind {
		case ReplyReady:
		case ReplyDone:
			rep.Status = d.u32()
		case ReplyFailed:
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

// MaxMessage bounds one message on the spawner's socket; a request that
// does not fit runs through a shim of its own.
const MaxMessage = 4 << 20
