package shim

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

var protoRequests = []Request{
	{ID: 1, Op: OpSpawn, File: "/bin/true", Argv: []string{"true"}},
	{ID: 2, Op: OpSpawn, File: "/bin/sh", Dir: "/tmp/a dir", Argv: []string{"sh", "-c", "echo é; exit 3", ""}, Env: []string{"A=1", "B=", "PATH=/bin"}},
	{ID: ^uint64(0), Op: OpReap},
}

// A request decodes to what was encoded.
func TestRequestRoundTrip(t *testing.T) {
	for _, req := range protoRequests {
		b := AppendRequest(nil, req)
		if req.Op == OpSpawn && len(b) != RequestSize(req) {
			t.Errorf("%+v: encoded in %d bytes, RequestSize says %d", req, len(b), RequestSize(req))
		}
		got, err := DecodeRequest(b)
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
	good := AppendRequest(nil, protoRequests[1])
	nul := AppendRequest(nil, Request{ID: 7, Op: OpSpawn, File: "/bin/true", Argv: []string{"a\x00b"}})
	huge := append(AppendRequest(nil, Request{ID: 7, Op: OpSpawn, File: "/f", Dir: "/"})[:9+4+2+4+1], 0xff, 0xff, 0xff, 0x7f)
	cases := map[string]struct {
		msg  []byte
		id   uint64
		want string
	}{
		"empty":         {nil, 0, "ends early"},
		"short id":      {[]byte{1, 2, 3}, 0, "ends early"},
		"id 0":          {AppendRequest(nil, Request{Op: OpReap}), 0, "id 0"},
		"no op":         {good[:8], 2, "ends early"},
		"unknown op":    {AppendRequest(nil, Request{ID: 5, Op: 9}), 5, "unknown operation 9"},
		"cut string":    {good[:20], 2, "ends early"},
		"cut anywhere":  {good[:len(good)-1], 2, "ends early"},
		"trailing":      {append(bytes.Clone(good), 0), 2, "bytes after"},
		"NUL":           {nul, 7, "NUL"},
		"huge count":    {huge, 7, "count exceeds"},
		"no argv":       {AppendRequest(nil, Request{ID: 3, Op: OpSpawn, File: "/bin/true"}), 3, "no argv[0]"},
		"no file":       {AppendRequest(nil, Request{ID: 3, Op: OpSpawn, Argv: []string{"x"}}), 3, "no file"},
		"reap trailing": {append(AppendRequest(nil, Request{ID: 4, Op: OpReap}), 1), 4, "bytes after"},
	}
	for name, c := range cases {
		req, err := DecodeRequest(c.msg)
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
	reps := []Reply{
		{Kind: ReplyReady},
		{ID: 3, Kind: ReplyDone, Status: 0x0300},
		{ID: 4, Kind: ReplyFailed, Err: "fork/exec /x: no such file or directory"},
		{ID: 5, Kind: ReplyDone, Status: 9},
		{ID: 6, Kind: ReplyFailed, Err: strings.Repeat("x", MaxReplyErr+10)},
	}
	var msg []byte
	for _, r := range reps {
		msg = AppendReply(msg, r)
	}
	var got []Reply
	if err := DecodeReplies(msg, func(r Reply) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	reps[4].Err = reps[4].Err[:MaxReplyErr]
	if !reflect.DeepEqual(got, reps) {
		t.Fatalf("decoded %+v;\nwant %+v", got, reps)
	}
	for name, bad := range map[string][]byte{
		"empty":        nil,
		"short":        msg[:5],
		"cut status":   msg[:9+9+2],
		"unknown kind": append(AppendReply(nil, Reply{ID: 1}), 0, 0, 0, 0, 0, 0, 0, 0, 7),
	} {
		if err := DecodeReplies(bad, func(Reply) {}); err == nil || !strings.HasPrefix(err.Error(), "malformed reply from the spawner: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// Any message decodes to a request (or replies) or an error, never a
// panic; a request
// that decodes encodes back to the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	for _, req := range protoRequests {
		f.Add(AppendRequest(nil, req))
	}
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, msg []byte) {
		DecodeReplies(msg, func(Reply) {}) // nor does a reply message
		req, err := DecodeRequest(msg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "malformed request to the spawner: ") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if back := AppendRequest(nil, req); !bytes.Equal(back, msg) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", msg, req, back)
		}
	})
}
