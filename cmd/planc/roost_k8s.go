package main

import (
	"context"
	"fmt"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capsule/k8sroost"
	"github.com/planc/planc/host/session"
)

// k8sRoost sets cfg's roost from --roost: a directory as it is, or with
// k8s:NAMESPACE a roost on the cluster the kubeconfig names, whose
// capsule steps run as Pods (k8sroost.FromFlag, docs/kubernetes.md). A
// bad namespace or an unreachable cluster is said on standard error and
// ok is false: the run is refused before it starts.
func (e *env) k8sRoost(c *command, roost string, cfg *host.Config) (ok bool) {
	launcher, isK8s, err := k8sroost.FromFlag(context.Background(), roost)
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "planc %s: %v\n", c.name, err)
		return false
	case isK8s:
		cfg.Spawner = func(t *session.Task, m *ast.Manifest) host.CapsuleSpawner { return launcher(t, m) }
	default:
		cfg.Roost = roost
	}
	return true
}

// capsuleK8sCommand is planc __capsule-k8s, what a capsule's Pod runs
// (k8sroost.RunPod).
var capsuleK8sCommand = &command{
	name:    k8sroost.PodCommand,
	summary: "internal: runs one sub-capsule in a capsule's Pod",
	usage: `usage: planc __capsule-k8s --in DIR --session DIR --workdir DIR

Internal to planc run --roost k8s:NAMESPACE: the command of a capsule's Pod.
It runs the sub-capsule whose manifest and objective are in --in (the
delegation's input ConfigMap), with its session in --session, and sends
its results home as ConfigMaps. $PLANC_K8S_NAMESPACE, $PLANC_K8S_LEASE and
$PLANC_K8S_POD name its namespace, its parent's Lease and its Pod; the
Lease is its lifeline. SIGTERM winds it down.
`,
	run: runCapsuleK8s,
}

// runCapsuleK8s implements planc __capsule-k8s.
func runCapsuleK8s(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	in := fs.String("in", k8sroost.InDir, "")
	sess := fs.String("session", k8sroost.SessionDir, "")
	workdir := fs.String("workdir", k8sroost.WorkDir, "")
	paths, status, ok := e.parseArgs(c, fs, args)
	switch {
	case !ok:
		return status
	case len(paths) != 0:
		return e.usageError(c, "takes no arguments")
	}
	ctx, stop := interruptible()
	defer stop()
	cs, _, err := k8sroost.Connect(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: %v\n", c.name, err)
		return int(session.ExitRefused)
	}
	return int(k8sroost.RunPod(ctx, k8sroost.PodConfigFromEnv(cs, *in, *sess, *workdir, e.stderr), host.RunCapsule))
}
