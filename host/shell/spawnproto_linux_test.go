package shell

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

var protoRequests = []spawnRequest{
	{ID: 1, Op: opSpawn, File: "/bin/true", Argv: []string{"true"}},
	{ID: 2, Op: opSpawn, File: "/bin/sh", Dir: "/tmp/a dir", Argv: []string{"sh", "-c", "echo é; exit 3", ""}, Env: []string{"A=1", "B=", "PATH=/bin"}},
	{ID: ^uint64(0), Op: opReap},
}

// A request decodes to what was encoded.
func TestRequestRoundTrip(t *testing.T) {
	for _, req := range protoRequests {
		b := appendRequest(nil, req)
		if req.Op == opSpawn && len(b) != requestSize(req) {
			t.Errorf("%+v: encoded in %d bytes, requestSize says %d", req, len(b), requestSize(req))
		}
		got, err := decodeRequest(b)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		if req.Env == nil && got.Env != nil && len(got.Env) == 0 {
			got.Env = nil
		}
		if !reflect.DeepEqual(got, req) {
			t.Errorf("decoded %+v; want %+v", got, req)
		}
	}
}

// A malformed request is an error, which keeps the request's id when the
// message has one.
func TestDecodeRequestMalformed(t *testing.T) {
	good := appendRequest(nil, protoRequests[1])
	nul := appendRequest(nil, spawnRequest{ID: 7, Op: opSpawn, File: "/bin/true", Argv: []string{"a\x00b"}})
	huge := append(appendRequest(nil, spawnRequest{ID: 7, Op: opSpawn, File: "/f", Dir: "/"})[:9+4+2+4+1], 0xff, 0xff, 0xff, 0x7f)
	cases := map[string]struct {
		msg  []byte
		id   uint64
		want string
	}{
		"empty":         {nil, 0, "ends early"},
		"short id":      {[]byte{1, 2, 3}, 0, "ends early"},
		"id 0":          {appendRequest(nil, spawnRequest{Op: opReap}), 0, "id 0"},
		"no op":         {good[:8], 2, "ends early"},
		"unknown op":    {appendRequest(nil, spawnRequest{ID: 5, Op: 9}), 5, "unknown operation 9"},
		"cut string":    {good[:20], 2, "ends early"},
		"cut anywhere":  {good[:len(good)-1], 2, "ends early"},
		"trailing":      {append(bytes.Clone(good), 0), 2, "bytes after"},
		"NUL":           {nul, 7, "NUL"},
		"huge count":    {huge, 7, "count exceeds"},
		"no argv":       {appendRequest(nil, spawnRequest{ID: 3, Op: opSpawn, File: "/bin/true"}), 3, "no argv[0]"},
		"no file":       {appendRequest(nil, spawnRequest{ID: 3, Op: opSpawn, Argv: []string{"x"}}), 3, "no file"},
		"reap trailing": {append(appendRequest(nil, spawnRequest{ID: 4, Op: opReap}), 1), 4, "bytes after"},
	}
	for name, c := range cases {
		req, err := decodeRequest(c.msg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "malformed request to the spawner: ") {
			t.Errorf("%s: error %v; want one saying %q", name, err, c.want)
		}
		if req.ID != c.id {
			t.Errorf("%s: id %d; want %d", name, req.ID, c.id)
		}
	}
}

// Replies batched in one message decode in order; a long error is cut.
func TestRepliesRoundTrip(t *testing.T) {
	reps := []spawnReply{
		{Kind: replyReady},
		{ID: 3, Kind: replyDone, Status: 0x0300},
		{ID: 4, Kind: replyFailed, Err: "fork/exec /x: no such file or directory"},
		{ID: 5, Kind: replyDone, Status: 9},
		{ID: 6, Kind: replyFailed, Err: strings.Repeat("x", maxReplyErr+10)},
	}
	var msg []byte
	for _, r := range reps {
		msg = appendReply(msg, r)
	}
	var got []spawnReply
	if err := decodeReplies(msg, func(r spawnReply) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	reps[4].Err = reps[4].Err[:maxReplyErr]
	if !reflect.DeepEqual(got, reps) {
		t.Fatalf("decoded %+v;\nwant %+v", got, reps)
	}
	for name, bad := range map[string][]byte{
		"empty":        nil,
		"short":        msg[:5],
		"cut status":   msg[:9+9+2],
		"unknown kind": append(appendReply(nil, spawnReply{ID: 1}), 0, 0, 0, 0, 0, 0, 0, 0, 7),
	} {
		if err := decodeReplies(bad, func(spawnReply) {}); err == nil || !strings.HasPrefix(err.Error(), "malformed reply from the spawner: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// The spawner answers a malformed request, or one with the wrong
// descriptors, with an error to the request's id, and goes on serving.
func TestSpawnerMalformed(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	spw, err := s.spawnerFor(cleanProtect(append(inherited(), protect...)))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := pipeFDs()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(r)
	defer unix.Close(w)
	spawnReq := spawnRequest{Op: opSpawn, File: "/bin/true", Argv: []string{"true"}}
	for i, c := range []struct {
		msg  func(id uint64) []byte
		oob  []byte
		want string
	}{
		{func(id uint64) []byte { return appendRequest(nil, spawnRequest{ID: id, Op: 77}) }, nil, "unknown operation 77"},
		{func(id uint64) []byte { b := appendRequest(nil, withID(spawnReq, id)); return b[:len(b)-2] }, unix.UnixRights(r, w), "ends early"},
		{func(id uint64) []byte { return appendRequest(nil, withID(spawnReq, id)) }, unix.UnixRights(r), "1 descriptors"},
		{func(id uint64) []byte { return appendRequest(nil, withID(spawnReq, id)) }, nil, "0 descriptors"},
		{func(id uint64) []byte { return appendRequest(nil, spawnRequest{ID: id, Op: opReap}) }, unix.UnixRights(r), "1 descriptors"},
	} {
		ch := make(chan spawnReply, 1)
		spw.mu.Lock()
		spw.next++
		id := spw.next
		spw.waits[id] = ch
		spw.mu.Unlock()
		if err := unix.Sendmsg(spw.fd, c.msg(id), c.oob, nil, 0); err != nil {
			t.Fatal(err)
		}
		rep, ok := <-ch
		if !ok || rep.Kind != replyFailed || !strings.Contains(rep.Err, "malformed request to the spawner") || !strings.Contains(rep.Err, c.want) {
			t.Errorf("case %d: reply %+v (open %v); want an error saying %q", i, rep, ok, c.want)
		}
	}
	res := s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo still"}, Protect: protect})
	if res.Err != nil || string(res.Output) != "still\n" {
		t.Fatalf("after malformed requests: %q, %v", res.Output, res.Err)
	}
}

// A request too big for one message goes to a shim of its own (which
// exec refuses, past its limit); the spawner is untouched and serves on.
func TestSpawnTooBig(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	argv := []string{"true"}
	for len(argv) < 40 { // 40 × 110 KB: past maxMessage
		argv = append(argv, strings.Repeat("x", 110<<10))
	}
	if n := requestSize(spawnRequest{File: "/bin/true", Argv: argv}); n <= maxMessage {
		t.Fatalf("request of %d bytes fits", n)
	}
	r := s.Run(context.Background(), Spec{Argv: argv, Protect: protect})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "fork/exec "+shimPath(s.Shim)+": argument list too long") {
		t.Fatalf("got %v; want the exec of a shim of its own to refuse it", r.Err)
	}
	if r := s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo ok"}, Protect: protect}); r.Err != nil || string(r.Output) != "ok\n" {
		t.Fatalf("after: %q, %v", r.Output, r.Err)
	}
}

func withID(req spawnRequest, id uint64) spawnRequest {
	req.ID = id
	return req
}

func pipeFDs() (int, int, error) {
	var p [2]int
	err := unix.Pipe2(p[:], unix.O_CLOEXEC)
	return p[0], p[1], err
}

// Any message decodes to a request (or replies) or an error, never a
// panic; a request
// that decodes encodes back to the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	for _, req := range protoRequests {
		f.Add(appendRequest(nil, req))
	}
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, msg []byte) {
		decodeReplies(msg, func(spawnReply) {}) // nor does a reply message
		req, err := decodeRequest(msg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "malformed request to the spawner: ") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if back := appendRequest(nil, req); !bytes.Equal(back, msg) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", msg, req, back)
		}
	})
}
