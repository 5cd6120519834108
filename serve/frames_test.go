package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineOf is a reader of one line of n bytes of fill (after head, before
// tail and a newline), made as it is read: a 100 MB line costs no 100 MB
// here.
type lineOf struct {
	head, tail string
	fill       byte
	n, off     int64
}

func (l *lineOf) Read(p []byte) (int, error) {
	total := int64(len(l.head)) + l.n + int64(len(l.tail)) + 1
	if l.off >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && l.off < total {
		switch o := l.off; {
		case o < int64(len(l.head)):
			p[k] = l.head[o]
		case o < int64(len(l.head))+l.n:
			p[k] = l.fill
		case o < total-1:
			p[k] = l.tail[o-int64(len(l.head))-l.n]
		default:
			p[k] = '\n'
		}
		k++
		l.off++
	}
	return k, nil
}

// TestFrameReader: lines without their line ends, blank lines skipped but
// counted, a last line without a newline, and a line over the limit read
// to its end but held only up to the limit.
func TestFrameReader(t *testing.T) {
	const max = 1 << 20
	big := &lineOf{head: `{"id": 6, "x": "`, fill: 'x', n: 100_000_000, tail: `"}`}
	in := io.MultiReader(strings.NewReader("one\r\n\n  \ntwo\n"), big, strings.NewReader("three"))
	f := newFrameReader(in, max)
	type got struct {
		line string
		n    int64
		no   int
	}
	var lines []got
	for {
		line, n, no, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(line) > 100 {
			if len(line) != max || !bytes.HasPrefix(line, []byte(big.head)) {
				t.Errorf("the long line is held as %d bytes starting %q; want its first %d", len(line), line[:20], max)
			}
			line = []byte("LONG")
		}
		lines = append(lines, got{string(line), n, no})
	}
	want := []got{{"one", 3, 1}, {"two", 3, 4}, {"LONG", int64(len(big.head)) + big.n + int64(len(big.tail)), 5}, {"three", 5, 6}}
	if len(lines) != len(want) {
		t.Fatalf("lines %v, want %v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %v, want %v", i, lines[i], want[i])
		}
	}
}

// TestDecodeMessage: what is a message, and the answer to what is not.
func TestDecodeMessage(t *testing.T) {
	for _, c := range []struct {
		in, id string // id "" for a message
		code   int64
		says   string
	}{
		{in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{in: `{"jsonrpc":"2.0","id":"a","result":{}}`},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`},
		{in: `null`, id: "null", code: -32600, says: "this is null"},
		{in: `42`, id: "null", code: -32600, says: "this is a number"},
		{in: `"ping"`, id: "null", code: -32600, says: "this is a string"},
		{in: `false`, id: "null", code: -32600, says: "this is a boolean"},
		{in: `[]`, id: "null", code: -32600, says: "this is an array"},
		{in: `{}`, id: "null", code: -32600, says: `no "jsonrpc": "2.0"`},
		{in: `{"jsonrpc":"2.0"}`, id: "null", code: -32600, says: `neither a "method"`},
		{in: `{"jsonrpc":"1.0","id":4,"method":"ping"}`, id: "4", code: -32600, says: `no "jsonrpc": "2.0"`},
		{in: `{"id":"k","method":"ping"}`, id: `"k"`, code: -32600, says: `no "jsonrpc": "2.0"`},
		{in: `{"jsonrpc":"2.0","id":4,"method":5}`, id: "4", code: -32600, says: `"method" must be a string`},
		{in: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, id: "null", code: -32600, says: `"id" must be a string or a number`},
		{in: `{"jsonrpc":"1.0","id":4,"result":{}}`, id: "null", code: -32600, says: `no "jsonrpc": "2.0"`},
		// ids the SDK would change or drop are refused, the id given back as sent
		{in: `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`},
		{in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, id: "null", code: -32600, says: `"id" is null`},
		{in: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, id: "1.5", code: -32600, says: `"id" 1.5 is not an integer`},
		{in: `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, id: "1e3", code: -32600, says: `is not an integer`},
		{in: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, id: "12345678901234567890", code: -32600, says: `fits in 64 bits`},
		{in: `{"jsonrpc":"2.0","id":2.5,"result":{}}`, id: "null", code: -32600, says: `is not an integer`},
	} {
		msg, r := decodeMessage(json.RawMessage(c.in))
		switch {
		case c.id == "" && (r != nil || msg == nil):
			t.Errorf("%s: refused: %+v", c.in, r)
		case c.id == "":
		case r == nil:
			t.Errorf("%s: decoded as %T; want an answer", c.in, msg)
		case string(r.ID) != c.id || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.says):
			t.Errorf("%s: answered %s; want id %s, code %d, saying %q", c.in, r.encode(), c.id, c.code, c.says)
		}
	}
}

// TestSniffID: an oversized line's id, from its first bytes, when the
// request gives it before they end.
func TestSniffID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"id":"x`: "7",
		`{"jsonrpc":"2.0","id":"a\"b","params":{"x`:                                    `"a\"b"`,
		`{"params":{"id":3,"deep":[{"id":4}]},"id":5,"x":"`:                            "5",
		`{"method":"x","params":{"arguments":{"id":"xxxx`:                              "null",
		`{"jsonrpc":"2.0","result":{},"id":3}`:                                         "null",
		`{"id":{"a":1}}`:                                                               "null",
		`[{"id":1}]`:                                                                   "null",
		`not json`:                                                                     "null",
	} {
		if got := string(sniffID([]byte(in))); got != want {
			t.Errorf("sniffID(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestReplyShape: planc's own answers are JSON-RPC error responses with an
// explicit id, null included.
func TestReplyShape(t *testing.T) {
	b := newReply(nullID, jsonrpc.CodeParseError, "parse error: <x> & y").encode()
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: <x> & y"}}`; string(b) != want {
		t.Errorf("reply %s, want %s", b, want)
	}
}

// BenchmarkFrameReaderOversized reads a 100 MB line and a short one: the
// memory per op is what the reader holds of the long line (at most
// MaxFrame, grown by append), not the line.
func BenchmarkFrameReaderOversized(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		f := newFrameReader(io.MultiReader(&lineOf{head: `{"id":1,"x":"`, fill: 'x', n: 100_000_000, tail: `"}`}, strings.NewReader("{}\n")), MaxFrame)
		if _, n, _, err := f.next(); err != nil || n <= int64(MaxFrame) {
			b.Fatal(n, err)
		}
		if line, _, _, err := f.next(); err != nil || string(line) != "{}" {
			b.Fatal(string(line), err)
		}
	}
}

// TestNotJSONTooDeep: JSON nested past the decoder's 10000 levels is an
// invalid request answered with its id, not a parse error with id null.
func TestNotJSONTooDeep(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`
	if json.Valid([]byte(deep)) {
		t.Fatal("the decoder takes 20000 levels now; make the test deeper")
	}
	r := notJSON([]byte(deep))
	if string(r.ID) != "7" || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "nests deeper than the 10000 levels") {
		t.Errorf("answered %s", r.encode())
	}
	if r := notJSON([]byte(`{"id":7,`)); string(r.ID) != "null" || r.Error.Code != jsonrpc.CodeParseError {
		t.Errorf("a line cut short: %s", r.encode())
	}
}

// FuzzFrame: whatever a line holds, it is a message or gets an answer
// that is one JSON-RPC error response whose id is null, a string or a
// number, and an oversized line's id is one of those too.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[1,{"jsonrpc":"2.0"}]`, `{"id":"x","method":5}`, `null`, `{`, `{"id":1e400,"method":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r *reply
		if !json.Valid(b) {
			r = notJSON(b)
		} else if _, r = decodeMessage(b); r == nil {
			return
		}
		var back struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *jsonrpc.Error  `json:"error"`
		}
		enc := r.encode()
		if err := json.Unmarshal(enc, &back); err != nil || back.JSONRPC != "2.0" || back.Error == nil || !(string(back.ID) == "null" || validID(back.ID)) {
			t.Errorf("%q answered %s", b, enc)
		}
		if id := sniffID(b); string(id) != "null" && !validID(id) {
			t.Errorf("sniffID(%q) = %s", b, id)
		}
	})
}

// TestDecodeMessageTooDeepForSDK: a message nested past the SDK's 1000
// levels but within Go's 10000 is answered with its id and the limit that
// refused it, not the SDK's own wording.
func TestDecodeMessageTooDeepForSDK(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"check-plan","arguments":{"id":"x","steps":[{"id":"a","tool":"notes","input":{"b":` +
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}]}}}`
	if !json.Valid([]byte(deep)) {
		t.Fatal("not JSON")
	}
	_, r := decodeMessage([]byte(deep))
	if r == nil || string(r.ID) != "7" || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "nests deeper than the 1000 levels the MCP SDK decodes") {
		t.Errorf("answered %v", r)
	}
}
