package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// wholeHost is a fake host that cuts outputs (S20): a dispatch returns
// "cut:" and the step's id, and WholeOutput gives the whole text back from
// whole, keyed by that text, recording every question.
type wholeHost struct {
	vmtest.Host
	whole map[string]string // cut text → whole text; absent: an error
	panic string            // a cut text whose WholeOutput panics

	mu    sync.Mutex
	asked []string // "index attempt text"
}

func (h *wholeHost) WholeOutput(index, attempt int, text string) (string, error) {
	h.mu.Lock()
	h.asked = append(h.asked, fmt.Sprintf("%d %d %s", index, attempt, text))
	h.mu.Unlock()
	if text == h.panic {
		panic("boom")
	}
	w, ok := h.whole[text]
	if !ok {
		return "", errors.New("the output is 17000000 bytes, over 16 MiB; it is kept whole at K")
	}
	return w, nil
}

// TestWholeOutputs: with a host that cuts outputs, the report carries the
// cut text while references in input, in a capsule's task text and in
// conditions read the whole text, asked of the host with the attempt that
// settled; two outputs whose cut texts are equal compare by their whole
// texts. A whole output the host cannot give (or panics on) fails the
// referring step without a dispatch: no retries, on_error applies.
func TestWholeOutputs(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x", "retries": 1}`,
		`{"id": "b", "shell": "x"}`,
		`{"id": "differ", "tool": "t", "depends_on": ["a", "b"], "if": "$a.output != $b.output", "input": {"a": "$a.output", "st": "$a.status"}}`,
		`{"id": "same", "tool": "t", "depends_on": ["a", "b"], "if": "$a.output == $b.output"}`,
		`{"id": "task", "capsule": "w", "depends_on": ["a"], "input": "$a.output"}`,
		`{"id": "big", "shell": "x"}`,
		`{"id": "toolong", "tool": "t", "depends_on": ["big"], "retries": 3, "on_error": "continue", "input": {"x": "$big.output"}}`,
		`{"id": "toolongif", "tool": "t", "depends_on": ["big"], "retries": 3, "on_error": "skip", "if": "$big.output == 'x'"}`,
		`{"id": "p", "shell": "x"}`,
		`{"id": "panics", "tool": "t", "depends_on": ["p"], "on_error": "continue", "input": {"x": "$p.output"}}`,
		`{"id": "empty", "shell": "x"}`,
		`{"id": "null", "tool": "t", "depends_on": ["empty"], "input": {"x": "$empty.output"}}`,
	)
	var mu sync.Mutex
	var calls []vm.Call
	attempts := map[string]int{}
	h := &wholeHost{
		whole: map[string]string{"cut:a": "same head, A tail", "cut:b": "same head, B tail"},
		panic: "cut:p",
	}
	// Both a and b carry the same cut text's head: only whole texts differ.
	h.Auto = func(_ context.Context, c vm.Call) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, c)
		attempts[c.Step.ID]++
		switch {
		case c.Step.ID == "a" && c.Attempt == 1:
			return "", errors.New("exit status 1")
		case c.Step.ID == "empty":
			return "", nil
		}
		return "cut:" + c.Step.ID, nil
	}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	got := map[string]row{}
	for _, r := range rows(rep) {
		got[r.ID] = r
	}
	tooLong := "reference $big.output: the output is 17000000 bytes, over 16 MiB; it is kept whole at K"
	want := map[string]row{
		"a":         {"a", "success", "cut:a", ""},
		"b":         {"b", "success", "cut:b", ""},
		"differ":    {"differ", "success", "cut:differ", ""},
		"same":      {"same", "skipped", "", ""},
		"task":      {"task", "success", "cut:task", ""},
		"big":       {"big", "success", "cut:big", ""},
		"toolong":   {"toolong", "failed", "", tooLong},
		"toolongif": {"toolongif", "skipped", "", tooLong},
		"p":         {"p", "success", "cut:p", ""},
		"panics":    {"panics", "failed", "", "reference $p.output: host panic reading the whole output: boom"},
		"empty":     {"empty", "success", "", ""},
		"null":      {"null", "success", "cut:null", ""},
	}
	for id, w := range want {
		diff(t, id, w, got[id])
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range []string{"toolong", "toolongif", "panics", "same"} {
		if attempts[id] != 0 {
			t.Errorf("%s was dispatched %d times", id, attempts[id])
		}
	}
	for _, c := range calls {
		switch c.Step.ID {
		case "differ":
			var in map[string]string
			if err := json.Unmarshal(c.Input, &in); err != nil || in["a"] != "same head, A tail" || in["st"] != "success" {
				t.Errorf("differ's input %s (%v)", c.Input, err)
			}
		case "task":
			diff(t, "task's objective", "same head, A tail", c.Objective)
		case "null":
			diff(t, "null's input", `{"x":null}`, string(c.Input))
		}
	}
	// a settled at its second attempt: the host is asked for that one. An
	// empty output is never asked for.
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, q := range h.asked {
		if strings.HasSuffix(q, " cut:a") && q != "0 2 cut:a" {
			t.Errorf("asked %q, want a's index 0 attempt 2", q)
		}
		if strings.Contains(q, "empty") || strings.HasSuffix(q, " ") {
			t.Errorf("asked for an empty output: %q", q)
		}
	}
	if len(h.asked) == 0 {
		t.Error("the host was never asked for a whole output")
	}
}

// TestWholeOutputsRedrive: a redrive's reused step hands its dependents
// the whole text too, asked of the host with its Prior's attempt and
// output; the report keeps the Prior's cut text.
func TestWholeOutputsRedrive(t *testing.T) {
	prog := compile(t,
		`{"id": "long", "shell": "x"}`,
		`{"id": "use", "tool": "t", "depends_on": ["long"], "if": "$long.output != 'cut:long'", "input": {"x": "$long.output"}}`,
	)
	h := &wholeHost{whole: map[string]string{"cut:long": "the whole long text"}}
	var input string
	h.Auto = func(_ context.Context, c vm.Call) (string, error) {
		input = string(c.Input)
		return "done", nil
	}
	prior := []vm.Prior{{Status: vm.StatusSuccess, Output: "cut:long", Attempt: 3}, {}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{Redrive: 1, Prior: prior}).Wait(t)
	diff(t, "report", []row{{"long", "success", "cut:long", ""}, {"use", "success", "done", ""}}, rows(rep))
	diff(t, "use's input", `{"x":"the whole long text"}`, input)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, q := range h.asked {
		diff(t, "asked", "0 3 cut:long", q)
	}
}
