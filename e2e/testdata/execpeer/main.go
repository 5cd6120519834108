// Command execpeer is BenchmarkRun200True's bare Go peer: it runs a
// command N times, P at a time, with os/exec and nothing else (no plan, no
// sandbox, no cgroups, no trace), so the benchmark shows what a Go program
// pays to start the same processes.
//
//	execpeer -n 200 -p 16 true
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

func main() {
	n := flag.Int("n", 200, "how many times to run the command")
	p := flag.Int("p", 16, "how many at a time")
	flag.Parse()
	if flag.NArg() == 0 || *n < 0 || *p < 1 {
		fmt.Fprintln(os.Stderr, "usage: execpeer [-n N] [-p P] command [arg...]")
		os.Exit(2)
	}
	path, err := exec.LookPath(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "execpeer:", err)
		os.Exit(1)
	}
	slots := make(chan struct{}, *p)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for range *n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(path, flag.Args()[1:]...)
			if err := cmd.Run(); err != nil {
				mu.Lock()
				failed++
				mu.Unlock()
			}
			<-slots
		}()
	}
	wg.Wait()
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "execpeer: %d of %d runs failed\n", failed, *n)
		os.Exit(1)
	}
}
