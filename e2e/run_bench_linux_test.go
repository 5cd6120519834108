package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// BenchmarkRun200True is issues 4's and 21's figure: planc run of 200
// independent `true` shell steps with --max-parallel 16, beside the same
// 200 processes started 16 at a time by xargs and by a bare Go program
// (testdata/execpeer). Run it with
//
//	go test ./e2e -run '^$' -bench Run200True -benchtime 20x
//
// bench/run.sh runs it in each of its rounds and puts it in
// docs/performance.md.
func BenchmarkRun200True(b *testing.B) { benchTrue(b, 200) }

// BenchmarkRun1True is a plan of one `true` step beside the same one
// process started by xargs and by the bare Go program: what a run costs
// before and after its steps (planc's start, the session, the scope, its
// guardian and spawner, the report), the latency of the smallest plan.
func BenchmarkRun1True(b *testing.B) { benchTrue(b, 1) }

// benchTrue runs n `true` steps, 16 at a time, through planc and the two
// peers.
func benchTrue(b *testing.B, n int) {
	bin := plancBin(b)
	dir := b.TempDir()
	steps := make([]map[string]string, n)
	for i := range steps {
		steps[i] = map[string]string{"id": fmt.Sprintf("t%d", i), "shell": "true"}
	}
	plan, _ := json.Marshal(map[string]any{"id": "t" + strconv.Itoa(n), "steps": steps})
	testkit.WriteFiles(b, dir, "plan.json", string(plan), "capsule.json",
		`{"name": "local/perf", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["true"]}}}`)
	b.Run("planc", func(b *testing.B) {
		if err := exec.Command(bin, "run", "--capsule", dir+"/capsule.json", "--session", dir+"/s", dir+"/plan.json").Run(); err != nil {
			b.Skipf("planc run: %v", err)
		}
		for b.Loop() {
			cmd := exec.Command(bin, "run", "--quiet", "--max-parallel", "16", "--capsule", "capsule.json", "--session", "s", "plan.json")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v\n%.2000s", err, out)
			}
		}
	})
	// A bare Go program starting the same processes 16 at a time with
	// os/exec: what planc's containment, plan and trace cost on top.
	peer := b.TempDir() + "/execpeer"
	if out, err := exec.Command("go", "build", "-o", peer, "github.com/planc/planc/e2e/testdata/execpeer").CombinedOutput(); err != nil {
		b.Fatalf("building execpeer: %v\n%s", err, out)
	}
	b.Run("go-exec", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command(peer, "-n", strconv.Itoa(n), "-p", "16", "true").CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
	})
	xargs := "seq " + strconv.Itoa(n) + " | xargs -P 16 -n 1 true"
	b.Run("xargs", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("sh", "-c", xargs).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
