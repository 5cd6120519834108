package k8sroost

import (
	"context"
	"io"
	"os"
	"strconv"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
)

// FromFlag reads planc run's --roost: isK8s is false for a directory;
// for k8s:NAMESPACE it connects to the cluster the kubeconfig names
// (Connect) and returns what makes each plan's Launcher there, for a
// capsule of manifest m at the delegation depth $PLANC_DELEGATION_DEPTH. A
// bad namespace or an unreachable cluster is the error, which says what
// to fix.
func FromFlag(ctx context.Context, roost string) (launcher func(*session.Task, *ast.Manifest) *Launcher, isK8s bool, err error) {
	ns, isK8s, err := ParseSpec(roost)
	if !isK8s || err != nil {
		return nil, isK8s, err
	}
	cs, _, err := Connect(ctx)
	if err != nil {
		return nil, true, err
	}
	return func(task *session.Task, m *ast.Manifest) *Launcher {
		depth, _ := strconv.Atoi(os.Getenv(capsule.EnvDelegationDepth))
		return New(Config{Client: cs, Namespace: ns, Task: task,
			From: m.Name, Allow: ast.Names(m.Capabilities.SpawnAllow), Depth: max(depth, 0)})
	}, true, nil
}

// PodConfigFromEnv is the PodConfig of `planc __capsule-k8s` on the
// cluster cs: its namespace, Lease and Pod from $PLANC_K8S_NAMESPACE,
// $PLANC_K8S_LEASE and $PLANC_K8S_POD, its parent from $PLANC_SPAWNED_BY
// and $PLANC_DELEGATION_ID, and its directories from the flags.
func PodConfigFromEnv(cs Client, inDir, sessionDir, workDir string, stderr io.Writer) PodConfig {
	return PodConfig{
		Client: cs, Namespace: os.Getenv(EnvNamespace), Lease: os.Getenv(EnvLease), Pod: os.Getenv(EnvPod),
		InDir: inDir, SessionDir: sessionDir, WorkDir: workDir,
		SpawnedBy: os.Getenv(capsule.EnvSpawnedBy), DelegationID: os.Getenv(capsule.EnvDelegationID),
		Stderr: stderr,
	}
}
