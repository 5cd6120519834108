package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// batchOf returns a JSON-RPC batch of n calls of method, ids 1 to n.
func batchOf(n int, method string) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+1, method)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestStreamBatchBounds: a batch of more than MaxBatch messages is
// refused with one error that says the limit, and none of its calls run;
// a batch of MaxBatch is answered in full; answers that would take what
// the connection holds for its batches past MaxBatchAnswers are replaced
// by errors with their calls' ids, and the connection goes on.
func TestStreamBatchBounds(t *testing.T) {
	s := openStream(t, Config{WorkDir: t.TempDir()})
	s.send(t, batchOf(MaxBatch+1, "ping"))
	a := s.next(t)
	want := fmt.Sprintf("the batch holds %d messages, over the limit of %d in one batch", MaxBatch+1, MaxBatch)
	if string(a.ID) != "null" || a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, want) {
		t.Errorf("a batch of %d: answered %s", MaxBatch+1, a.line)
	}
	s.send(t, batchOf(MaxBatch, "ping"))
	var answers []answer
	if a := s.next(t); json.Unmarshal(a.line, &answers) != nil || len(answers) != MaxBatch {
		t.Errorf("a batch of %d: answered %.200s", MaxBatch, a.line)
	}
	for _, a := range answers {
		if a.Error != nil {
			t.Errorf("a batch of %d: %s", MaxBatch, a.line)
		}
	}

	// The size of one tools/list answer.
	s.send(t, `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`)
	one := len(s.next(t).line)

	defer func(old int) { MaxBatchAnswers = old }(MaxBatchAnswers)
	MaxBatchAnswers = 2*one + one/2
	s = openStream(t, Config{WorkDir: t.TempDir()})
	for range 2 { // the bytes held are given back once a batch is written
		s.send(t, batchOf(4, "tools/list"))
		a := s.next(t)
		var got []struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(a.line, &got); err != nil || len(got) != 4 {
			t.Fatalf("a batch of 4 tools/list: %v %.300s", err, a.line)
		}
		results, ids := 0, map[int]bool{}
		for _, g := range got {
			ids[g.ID] = true
			switch {
			case g.Result != nil:
				results++
			case g.Error == nil || g.Error.Code != -32603 || !strings.Contains(g.Error.Message, fmt.Sprintf("the answers held for batches would pass %d bytes; send the call again on a line of its own", MaxBatchAnswers)):
				t.Errorf("answer %d: %+v", g.ID, g.Error)
			}
		}
		if results != 2 || len(ids) != 4 || len(a.line) > 3*one {
			t.Errorf("%d results, ids %v, %d bytes (one answer: %d)", results, ids, len(a.line), one)
		}
	}
	s.send(t, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if a := s.next(t); string(a.ID) != "9" || a.Error != nil {
		t.Errorf("tools/list on its own after: %.200s", a.line)
	}
}
