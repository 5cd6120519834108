package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/planc/planc/parser"
)

// MaxFrame is the longest line ServeStream reads as one JSON-RPC message:
// the 16 MiB of a plan (S5) and 1 MiB for the request around it. A longer
// line is answered with an error and skipped; at most MaxFrame bytes of it
// are held.
var MaxFrame = parser.DefaultLimits().MaxBytes + 1<<20

// sniffWindow is how much of an oversized frame is searched for its id.
const sniffWindow = 64 << 10

// frameReader splits a byte stream into lines, one JSON-RPC frame each
// (the MCP stdio transport: messages are delimited by newlines).
type frameReader struct {
	br    *bufio.Reader
	max   int
	lines int // the lines read so far, blank ones included
}

// newFrameReader reads r's lines of at most max bytes.
func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line that is not blank, without its line end,
// and its number. A line longer than f.max is read to its end but not
// kept whole: next returns its first f.max bytes and its length n, which
// is then over f.max. The last line needs no newline; io.EOF follows it.
func (f *frameReader) next() (line []byte, n int64, lineNo int, err error) {
	for {
		line, n = nil, 0
		var chunk []byte
		for {
			var rerr error
			chunk, rerr = f.br.ReadSlice('\n')
			n += int64(len(chunk))
			line = f.keep(line, chunk)
			if rerr == bufio.ErrBufferFull {
				continue
			}
			if rerr != nil && (rerr != io.EOF || n == 0) {
				return nil, 0, f.lines, rerr
			}
			break
		}
		f.lines++
		if bytes.HasSuffix(chunk, []byte("\n")) {
			line, n = bytes.TrimSuffix(line, []byte("\n")), n-1
			if bytes.HasSuffix(line, []byte("\r")) {
				line, n = line[:len(line)-1], n-1
			}
		}
		if n > int64(f.max) {
			return line[:min(len(line), f.max)], n, f.lines, nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, n, f.lines, nil
		}
	}
}

// keep appends to line what of chunk fits in f.max bytes and a line end,
// doubling line's room as it grows (append grows a large slice by a
// quarter, which would copy a 17 MiB line some forty times).
func (f *frameReader) keep(line, chunk []byte) []byte {
	chunk = chunk[:max(0, min(len(chunk), f.max+2-len(line)))]
	if need := len(line) + len(chunk); need > cap(line) {
		grown := make([]byte, len(line), min(max(need, 2*cap(line)), f.max+2))
		copy(grown, line)
		line = grown
	}
	return append(line, chunk...)
}

// nullID is the id of an answer to a frame whose request id is unknown.
var nullID = json.RawMessage("null")

// reply is an answer planc writes itself to a frame the SDK never sees:
// a JSON-RPC error response.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

// newReply is the error response with id (nullID when unknown).
func newReply(id json.RawMessage, code int64, format string, args ...any) *reply {
	return &reply{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// encode is r as one line of JSON without its newline.
func (r *reply) encode() json.RawMessage {
	b, err := marshal(r)
	if err != nil { // a reply is plain strings and numbers
		panic(err)
	}
	return b
}

// marshal is json.Marshal without escaping <, > and &, as the SDK writes
// its messages.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// tooLarge answers a line of n bytes over max, with the request id its
// first bytes give when they give one.
func tooLarge(prefix []byte, n int64, max int) *reply {
	return newReply(sniffID(prefix[:min(len(prefix), sniffWindow)]), jsonrpc.CodeInvalidRequest,
		"invalid request: the line is %d bytes, over the %d-byte limit of one message (a plan may be 16 MiB, S5); it was skipped", n, max)
}

// notJSON answers a line that is not JSON: a parse error, id null. JSON
// nested deeper than Go's decoder goes (10000 levels) is JSON all the
// same: an invalid request, answered with its id when it comes before the
// depth, as an oversized line's is.
func notJSON(line []byte) *reply {
	var v json.RawMessage
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) && strings.HasSuffix(se.Error(), "exceeded max depth") {
		return newReply(sniffID(line[:min(len(line), sniffWindow)]), jsonrpc.CodeInvalidRequest, "invalid request: %s", tooDeep(10000, "JSON is decoded to"))
	}
	if errors.As(err, &se) {
		return newReply(nullID, jsonrpc.CodeParseError, "parse error: the line is not JSON: %v at byte %d; send one JSON-RPC message per line", se, se.Offset)
	}
	return newReply(nullID, jsonrpc.CodeParseError, "parse error: the line is not JSON: %v; send one JSON-RPC message per line", err)
}

// decodeMessage decodes one JSON value (a line, or a member of a batch)
// as a JSON-RPC message, or answers why it is none: an invalid request
// whose id is the value's own when it has a "method" and a valid id, else
// null (an answer with the id of a client's response would look like the
// response to the client's own request of that id).
func decodeMessage(raw json.RawMessage) (jsonrpc.Message, *reply) {
	var obj map[string]json.RawMessage
	if kindOf(raw) != '{' {
		return nil, newReply(nullID, jsonrpc.CodeInvalidRequest,
			"invalid request: a JSON-RPC message is an object with \"jsonrpc\": \"2.0\", this is %s", kind(raw))
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, newReply(nullID, jsonrpc.CodeInvalidRequest, "invalid request: %v", err)
	}
	id := nullID
	if _, ok := obj["method"]; ok && validID(obj["id"]) {
		id = obj["id"]
	}
	invalid := func(why string) (jsonrpc.Message, *reply) {
		return nil, newReply(id, jsonrpc.CodeInvalidRequest, "invalid request: %s", why)
	}
	method, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	rawID, hasID := obj["id"]
	switch {
	case string(obj["jsonrpc"]) != `"2.0"`:
		return invalid(`the object has no "jsonrpc": "2.0"`)
	case hasMethod && kindOf(method) != '"':
		return invalid(`"method" must be a string`)
	case !hasMethod && !(hasID && (hasResult || hasError)):
		return invalid(`the object has neither a "method" (a request or notification) nor an "id" with a "result" or "error" (a response)`)
	case hasID && !validID(rawID) && string(rawID) != "null":
		return invalid(`"id" must be a string or a number`)
	case hasMethod && hasID && string(rawID) == "null":
		// JSON-RPC allows it but discourages it; MCP forbids it, and the
		// SDK would take the request for a notification and answer nothing.
		return invalid(`"id" is null; an MCP request's id is a string or an integer (a notification has no "id")`)
	case hasID && kindOf(rawID) == '0' && !integerID(rawID):
		// The SDK keeps ids as 64-bit integers: 1.5 would be answered as 1.
		return invalid(fmt.Sprintf(`"id" %s is not an integer that fits in 64 bits; give a string or an integer id`, bytes.TrimSpace(rawID)))
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil && strings.Contains(err.Error(), "exceeded maximum nesting depth") {
		// The SDK decodes a message to sdkMaxDepth levels only (go-sdk
		// v1.8.0, internal/json): a plan nested deeper than that never
		// reaches check-plan's too-deep, so say what the limit is.
		return invalid(tooDeep(sdkMaxDepth, "the MCP SDK decodes"))
	}
	if err != nil {
		return invalid(err.Error())
	}
	return msg, nil
}

// tooDeep says that a message nests deeper than the levels a decoder
// (what) takes.
func tooDeep(levels int, what string) string {
	return fmt.Sprintf("the message nests deeper than the %d levels %s (a plan may nest %d, S5); it was skipped: nest less", levels, what, parser.DefaultLimits().MaxDepth)
}

// sdkMaxDepth is the nesting the SDK's JSON-RPC decoder takes (go-sdk
// v1.8.0, internal/json's defaultMaxDepth).
const sdkMaxDepth = 1000

// integerID reports whether raw, a JSON number, is an integer the SDK
// keeps as it is: no fraction or exponent, within 64 bits.
func integerID(raw json.RawMessage) bool {
	_, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return err == nil
}

// validID reports whether raw is a request id: a string or a number.
func validID(raw json.RawMessage) bool {
	k := kindOf(raw)
	return k == '"' || k == '0'
}

// kindOf classifies a JSON value by its first byte: '{', '[', '"', 'n'
// (null), 't' (a boolean), '0' (a number), 0 (nothing).
func kindOf(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; c {
	case '{', '[', '"', 'n', 't':
		return c
	case 'f':
		return 't'
	default:
		return '0'
	}
}

// kind names a JSON value's type for a message.
func kind(raw []byte) string {
	switch kindOf(raw) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't':
		return "a boolean"
	default:
		return "a number"
	}
}

// sniffID returns the "id" of the request whose first bytes prefix is,
// when the top-level object gives a string or number id before it ends
// (and before any "result" or "error": a response's id is the client's),
// else null.
func sniffID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nullID
	}
	depth := 1
	for key := true; ; {
		t, err := dec.Token()
		if err != nil {
			return nullID
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nullID
		}
		if depth != 1 || t == json.Delim('{') || t == json.Delim('[') {
			continue
		}
		if !key {
			key = true // a member's value ended
			continue
		}
		key = false
		switch t {
		case "result", "error":
			return nullID
		case "id":
			v, err := dec.Token()
			if err != nil {
				return nullID
			}
			if s, ok := v.(string); ok {
				b, _ := json.Marshal(s)
				return b
			}
			if n, ok := v.(json.Number); ok {
				return json.RawMessage(n.String())
			}
			return nullID
		}
	}
}
