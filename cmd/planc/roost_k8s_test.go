package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoostK8sRefusals: --roost k8s:NAMESPACE refuses the run before it
// starts, exit 2, when the namespace is no namespace name or no cluster
// can be reached, saying what to fix.
func TestRoostK8sRefusals(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "x"}}]}`), 0o644)
	t.Setenv("HOME", dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	kc := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600)
	t.Setenv("KUBECONFIG", kc)
	for roost, want := range map[string]string{
		"k8s:":       "planc run: --roost k8s: names no namespace; write --roost k8s:NAMESPACE",
		"k8s:Bad_NS": `planc run: --roost k8s:Bad_NS: "Bad_NS" is not a Kubernetes namespace name`,
		"k8s:agents": "planc run: no Kubernetes cluster reachable at https://127.0.0.1:1",
	} {
		got := run(t, "", "run", "--workdir", dir, "--roost", roost, plan)
		if got.Code != 2 || !strings.Contains(got.Stderr, want) {
			t.Errorf("--roost %s: exit %d, stderr %q\nwant %q", roost, got.Code, got.Stderr, want)
		}
	}
}
