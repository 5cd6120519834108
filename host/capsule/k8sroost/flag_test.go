package k8sroost

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/planc/planc/host/capsule"
)

// TestFromFlag: a directory is no Kubernetes roost; a bad namespace is
// refused before any cluster is asked.
func TestFromFlag(t *testing.T) {
	if mk, isK8s, err := FromFlag(context.Background(), "./roost"); mk != nil || isK8s || err != nil {
		t.Errorf("a directory: %v %v %v", mk != nil, isK8s, err)
	}
	if mk, isK8s, err := FromFlag(context.Background(), "k8s:Bad_NS"); mk != nil || !isK8s || err == nil || !strings.Contains(err.Error(), "is not a Kubernetes namespace name") {
		t.Errorf("a bad namespace: %v %v %v", mk != nil, isK8s, err)
	}
}

// TestPodConfigFromEnv: the Pod's names and its parent come from the
// environment the launcher set.
func TestPodConfigFromEnv(t *testing.T) {
	for k, v := range map[string]string{EnvNamespace: "ns", EnvLease: "lease", EnvPod: "pod", capsule.EnvSpawnedBy: "parent", capsule.EnvDelegationID: "d1"} {
		t.Setenv(k, v)
	}
	pc := PodConfigFromEnv(nil, "in", "sess", "work", io.Discard)
	if pc.Namespace != "ns" || pc.Lease != "lease" || pc.Pod != "pod" || pc.SpawnedBy != "parent" || pc.DelegationID != "d1" ||
		pc.InDir != "in" || pc.SessionDir != "sess" || pc.WorkDir != "work" || pc.Stderr != io.Discard {
		t.Errorf("PodConfigFromEnv: %+v", pc)
	}
}
