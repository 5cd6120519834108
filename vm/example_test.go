package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/planc/planc/check"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// greeter is a small runtime's vm.Host: two tools of its own, no shell
// and no sub-capsules, and a trace printed to standard output.
type greeter struct {
	// NopHost gives the methods a runtime does not need (here Refuse);
	// the others are overridden below.
	vm.NopHost
}

// CallTool runs the runtime's two tools. The VM calls it on a goroutine of
// its own, never two at once (the tool lane, S17).
func (greeter) CallTool(_ context.Context, c vm.Call) (string, error) {
	switch c.Step.Target {
	case "whoami":
		return "Ada", nil
	case "greet":
		var in struct{ Name string }
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return "", err
		}
		if in.Name == "" {
			return "", errors.New("greet: no name")
		}
		return "Hello, " + in.Name + "!", nil
	}
	return "", fmt.Errorf("no tool %q", c.Step.Target)
}

// RunShell refuses: this runtime runs no commands. check refuses shell
// steps before they get here (no binary is allowed), so it is never
// called; a Host must still answer.
func (greeter) RunShell(context.Context, vm.Call) (string, error) {
	return "", errors.New("this runtime runs no shell steps")
}

// SpawnCapsule refuses, as RunShell does.
func (greeter) SpawnCapsule(context.Context, vm.Call) (string, error) {
	return "", errors.New("this runtime spawns no sub-capsules")
}

// Trace prints each event as a trace.jsonl line would hold it, without
// ts and session. The VM calls it in order, one call at a time.
func (greeter) Trace(e vm.Event) {
	fmt.Printf("  {%s}\n", e.AppendFields(nil))
}

// Example embeds the whole flow: parse the plan, check it against the
// capabilities this runtime grants, lower it, and run it on the VM with
// a Host of one's own.
func Example() {
	src := []byte(`{
  "id": "hello",
  "steps": [
    {"id": "who", "tool": "whoami"},
    {"id": "hi", "tool": "greet", "depends_on": ["who"], "input": {"name": "$who.output"}, "on_error": "continue"},
    {"id": "oops", "tool": "greet", "depends_on": ["hi"], "if": "$hi.status == 'failed'", "input": {}}
  ]
}`)
	// 1 and 2. Parse and check, with the capabilities the runtime grants
	// (nil would turn the capability rules off): a nil plan is refused.
	// Warnings do not refuse a plan.
	caps := &check.Capabilities{Tools: []string{"greet", "whoami"}, Manifest: "capsule.json"}
	plan, diags := check.Load(src, caps)
	for _, d := range diags {
		fmt.Println(d.OneLine("hello.json"))
	}
	if plan == nil {
		return
	}
	// 3. Lower: a Program is immutable and may be run many times.
	prog, err := ir.Lower(plan)
	if err != nil {
		panic(err) // check accepted the plan, so this does not happen
	}
	// 4. Run. A fixed clock makes duration_ms 0 for this example.
	fmt.Println("trace:")
	clock := func() time.Time { return time.Unix(0, 0) }
	rep, err := vm.Run(context.Background(), prog, greeter{}, vm.Options{Now: clock})
	if err != nil {
		panic(err) // only for a nil host or an invalid program
	}
	fmt.Println("summary:", rep.Summary)
	out, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(out))
	// Output:
	// trace:
	//   {"event":"plan_start","plan_id":"hello","plan_file":null,"steps":3}
	//   {"event":"plan_step_start","plan_id":"hello","step_id":"who","kind":"tool","attempt":1}
	//   {"event":"plan_step","plan_id":"hello","step_id":"who","status":"success","attempt":1,"duration_ms":0,"error":null}
	//   {"event":"plan_step_start","plan_id":"hello","step_id":"hi","kind":"tool","attempt":1}
	//   {"event":"plan_step","plan_id":"hello","step_id":"hi","status":"success","attempt":1,"duration_ms":0,"error":null}
	//   {"event":"plan_step","plan_id":"hello","step_id":"oops","status":"skipped","attempt":0,"duration_ms":0,"error":null}
	//   {"event":"plan_end","plan_id":"hello","outcome":"completed","failed_step":null,"succeeded":2,"failed":0,"skipped":1}
	// summary: Plan 'hello': 3 steps, 2 succeeded, 0 failed, 1 skipped
	// {
	//   "plan_id": "hello",
	//   "completed": true,
	//   "canceled": false,
	//   "failed_step": null,
	//   "steps": [
	//     {
	//       "step_id": "who",
	//       "status": "success",
	//       "output": "Ada",
	//       "error": null
	//     },
	//     {
	//       "step_id": "hi",
	//       "status": "success",
	//       "output": "Hello, Ada!",
	//       "error": null
	//     },
	//     {
	//       "step_id": "oops",
	//       "status": "skipped",
	//       "output": null,
	//       "error": null
	//     }
	//   ]
	// }
}

// Example_refused shows a plan the checker refuses: nothing is lowered or
// run, and the diagnostics say why, as planc check prints their first
// lines.
func Example_refused() {
	src := []byte(`{"id": "hello", "steps": [
  {"id": "who", "tool": "whoam"},
  {"id": "ls", "shell": "ls -l"}
]}`)
	caps := &check.Capabilities{Tools: []string{"greet", "whoami"}, Manifest: "capsule.json"}
	plan, diags := check.Load(src, caps)
	for _, d := range diags {
		fmt.Println(d.OneLine("hello.json"))
	}
	fmt.Println("refused:", plan == nil)
	// Output:
	// hello.json:2:25: error: tool "whoam" is not among the tools of capsule.json, which has "greet", "whoami" (did you mean "whoami"?); add an MCP server offering "whoam" to tools.mcp [unknown-tool]
	// hello.json:3:25: error: "ls" is not in capabilities.shell.allow of capsule.json; add "ls" to capabilities.shell.allow [shell-not-allowed]
	// refused: true
}

// Example_redrive redrives a plan whose first run failed at its last step
// (S26): the host hands the VM what that run recorded, one vm.Prior per
// step; the success is reused with its recorded output and no dispatch,
// and the failed step runs again with its next attempt number.
func Example_redrive() {
	plan, _ := check.Load([]byte(`{"id": "hello", "steps": [
    {"id": "who", "tool": "whoami"},
    {"id": "hi", "tool": "greet", "depends_on": ["who"], "input": {"name": "$who.output"}}
  ]}`), nil)
	prog, err := ir.Lower(plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	prior := []vm.Prior{
		{Status: vm.StatusSuccess, Output: "Grace", Attempt: 1},        // who: reused
		{Status: vm.StatusFailed, Error: "greet: no name", Attempt: 2}, // hi: runs again as attempt 3
	}
	rep, err := vm.Run(context.Background(), prog, greeter{}, vm.Options{PlanFile: "plans/plan-1.json", Redrive: 1, Prior: prior})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Summary)
	fmt.Println(*rep.Steps[1].Output)
	// Output:
	//   {"event":"plan_start","plan_id":"hello","plan_file":"plans/plan-1.json","steps":2,"redrive":1}
	//   {"event":"plan_step","plan_id":"hello","step_id":"who","status":"success","attempt":1,"duration_ms":0,"error":null,"reused":true,"output_bytes":5}
	//   {"event":"plan_step_start","plan_id":"hello","step_id":"hi","kind":"tool","attempt":3}
	//   {"event":"plan_step","plan_id":"hello","step_id":"hi","status":"success","attempt":3,"duration_ms":0,"error":null}
	//   {"event":"plan_end","plan_id":"hello","outcome":"completed","failed_step":null,"succeeded":2,"failed":0,"skipped":0,"redrive":1}
	// Plan 'hello': 2 steps, 2 succeeded, 0 failed, 0 skipped
	// Hello, Grace!
}
