package k8sroost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

const ns = "agents"

// roostCM is a roost ConfigMap of capsule name (namespace/name) with the
// manifest src and data.
func roostCM(cmName, name, src string, data ...string) *corev1.ConfigMap {
	cns, cname, _ := strings.Cut(name, "/")
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: cmName, Namespace: ns, Labels: map[string]string{LabelNamespace: cns, LabelName: cname}},
		Data:       map[string]string{KeyManifest: src},
	}
	for i := 0; i+1 < len(data); i += 2 {
		cm.Data[data[i]] = data[i+1]
	}
	return cm
}

const workerManifest = `{"name": "local/worker", "version": "1.2.0", "entrypoint": {"command": ["./run.sh"]}}`

func TestParseSpec(t *testing.T) {
	for in, want := range map[string]string{"k8s:agents": "agents", "roost": "", "./k8s:x": ""} {
		got, ok, err := ParseSpec(in)
		if err != nil || got != want || ok != (want != "") {
			t.Errorf("%q: %q %v %v", in, got, ok, err)
		}
	}
	for in, want := range map[string]string{"k8s:": "names no namespace", "k8s:Agents_1": "not a Kubernetes namespace name"} {
		if _, ok, err := ParseSpec(in); !ok || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v %v, want %q", in, ok, err, want)
		}
	}
}

// TestResolve: the roost finds a capsule's ConfigMap by its labels, and
// refuses as the directory roost does, with what to fix.
func TestResolve(t *testing.T) {
	cs := fake.NewClientset(
		roostCM("worker", "local/worker", workerManifest, KeyImage, "registry.example/planc-worker:1", "run.sh", "#!/bin/sh\ncat\n",
			KeyResources, `{"requests": {"cpu": "250m"}, "limits": {"memory": "512Mi"}}`),
		roostCM("noimage", "local/noimage", `{"name": "local/noimage", "entrypoint": {"command": ["true"]}}`),
		roostCM("other", "local/liar", `{"name": "local/worker", "entrypoint": {"command": ["true"]}}`, KeyImage, "x"),
		roostCM("noentry", "local/noentry", `{"name": "local/noentry"}`, KeyImage, "x"),
		roostCM("badres", "local/badres", `{"name": "local/badres", "entrypoint": {"command": ["true"]}}`, KeyImage, "x", KeyResources, `{"request": {}}`),
		roostCM("twin1", "local/twin", `{"name": "local/twin", "entrypoint": {"command": ["true"]}}`, KeyImage, "x"),
		roostCM("twin2", "local/twin", `{"name": "local/twin", "entrypoint": {"command": ["true"]}}`, KeyImage, "x"),
	)
	f, err := Resolve(t.Context(), typed(cs), ns, "worker", "local/top", []string{"local/worker"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "local/worker" || f.Version != "1.2.0" || f.Image != "registry.example/planc-worker:1" || f.ServiceAccount != DefaultServiceAccount ||
		f.Resources.Requests.Cpu().String() != "250m" || f.Resources.Limits.Memory().String() != "512Mi" || f.Files["run.sh"] == "" || f.Files[KeyManifest] != workerManifest {
		t.Errorf("found %+v", f)
	}
	if _, ok := f.Files[KeyImage]; ok {
		t.Errorf("the image key is not a file: %v", f.Files)
	}
	for _, tt := range []struct {
		bare  string
		allow []string
		want  string
	}{
		{"worker", nil, `capsule "local/top" may spawn nothing`},
		{"worker", []string{"local/other"}, `it is not in capabilities.spawn.allow of "local/top", which allows "local/other"`},
		{"worker", []string{"a/worker", "b/worker"}, `matches "a/worker" and "b/worker"`},
		{"local/worker", []string{"local/worker"}, `write "worker", the bare name`},
		{"ghost", []string{"local/ghost"}, `capsule "local/ghost" is not in the roost k8s:agents: no ConfigMap in namespace agents has the labels planc.dev/capsule-name=ghost,planc.dev/capsule-namespace=local; create one`},
		{"noimage", []string{"local/noimage"}, `configmap/noimage in namespace agents has no "image" key`},
		{"liar", []string{"local/liar"}, `holds capsule "local/worker", not "local/liar"`},
		{"noentry", []string{"local/noentry"}, `has no entrypoint; add "entrypoint"`},
		{"badres", []string{"local/badres"}, `is not a container's resources`},
		{"twin", []string{"local/twin"}, `ConfigMaps "twin1" and "twin2" in namespace agents all have the labels`},
	} {
		_, err := Resolve(t.Context(), typed(cs), ns, tt.bare, "local/top", tt.allow)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %v: %v\nwant %s", tt.bare, tt.allow, err, tt.want)
		}
	}
}

// TestRBACRefusal: a verb RBAC forbids is named, with its resource and
// the Role that grants it — when listing the roost and creating the Pod.
func TestRBACRefusal(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("list", "configmaps", forbid("list", "configmaps"))
	_, err := Resolve(t.Context(), typed(cs), ns, "worker", "local/top", []string{"local/worker"})
	want := `the cluster's RBAC forbids planc to list configmaps in namespace agents (configmaps is forbidden: User "system:serviceaccount:agents:planc" cannot list resource "configmaps"`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `the Role "planc-roost" of docs/kubernetes.md`) {
		t.Errorf("err %v", err)
	}

	h := newHarness(t, roostCM("worker", "local/worker", workerManifest, KeyImage, "img"))
	h.cs.PrependReactor("create", "pods", forbid("create", "pods"))
	_, err = h.spawn(t.Context(), "w", 1)
	if err == nil || !strings.Contains(err.Error(), `cannot spawn "local/worker": cannot start its Pod: the cluster's RBAC forbids planc to create pods in namespace agents`) {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.task.Session.Dir, "delegations", "plan-1-w-1")); !os.IsNotExist(err) {
		t.Errorf("the delegation directory of a Pod that never was: %v", err)
	}
	if cms := h.configMaps(); !slices.Equal(cms, []string{"worker"}) {
		t.Errorf("the input ConfigMap is left: %v", cms)
	}
}

func forbid(verb, resource string) k8stesting.ReactionFunc {
	return func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "",
			fmt.Errorf(`User "system:serviceaccount:agents:planc" cannot %s resource %q in API group "" in the namespace "agents"`, verb, resource))
	}
}

// harness is a parent session and a fake cluster with a stand-in kubelet
// that runs each Pod's sub-capsule in this process, with RunPod and a
// fake ChildRunner: the only parts that are not the package's own.
type harness struct {
	t    *testing.T
	cs   *fake.Clientset
	task *session.Task
	l    *Launcher
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	cs := fake.NewClientset(objs...)
	sess, err := session.Create(filepath.Join(t.TempDir(), "sessions"), sessionfmt.SessionInfo{Capsule: "local/top"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.OpenTrace(filepath.Join(sess.Dir, sessionfmt.TraceFile), sess.Info.ID)
	if err != nil {
		t.Fatal(err)
	}
	task := &session.Task{Session: sess, Trace: tr, Plan: &session.PlanFile{N: 1}, WorkDir: t.TempDir()}
	t.Cleanup(func() { task.Close(); tr.Close() })
	l := New(Config{Client: typed(cs), Namespace: ns, Task: task, From: "local/top", Allow: []string{"local/worker"},
		Grace: 5 * time.Second, LeaseDuration: time.Minute, Resync: 50 * time.Millisecond})
	t.Cleanup(func() { l.Close() })
	return &harness{t: t, cs: cs, task: task, l: l}
}

func (h *harness) spawn(ctx context.Context, step string, attempt int) (string, error) {
	return h.l.Spawn(ctx, vm.Call{PlanID: "p", Step: &ir.Step{ID: step, Kind: ir.KindCapsule, Target: "worker"}, Attempt: attempt, Objective: "do " + step})
}

func (h *harness) configMaps() []string {
	list, err := h.cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, cm := range list.Items {
		out = append(out, cm.Name)
	}
	slices.Sort(out)
	return out
}

// kubelet calls run for each Pod created from now on, in a goroutine of
// its own.
func (h *harness) kubelet(run func(p *corev1.Pod)) {
	w, err := h.cs.CoreV1().Pods(ns).Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Added {
				go run(p.DeepCopy())
			}
		}
	}()
}

// setStatus writes the Pod's status as a kubelet does.
func (h *harness) setStatus(p *corev1.Pod, phase corev1.PodPhase, st corev1.ContainerState) {
	cur, err := h.cs.CoreV1().Pods(ns).Get(context.Background(), p.Name, metav1.GetOptions{})
	if err != nil {
		return // deleted meanwhile
	}
	cur.Status.Phase = phase
	cur.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "capsule", State: st}}
	h.cs.CoreV1().Pods(ns).UpdateStatus(context.Background(), cur, metav1.UpdateOptions{})
}

// runPod runs the Pod's sub-capsule in this process as its container
// would: its input ConfigMap's files in a directory (the volume), RunPod
// with runner.
func (h *harness) runPod(ctx context.Context, p *corev1.Pod, runner ChildRunner) session.ExitCode {
	in, err := h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), p.Name+"-in", metav1.GetOptions{})
	if err != nil {
		h.t.Error(err)
		return session.ExitRefused
	}
	dir := h.t.TempDir()
	for k, v := range in.Data {
		os.WriteFile(filepath.Join(dir, k), []byte(v), 0o555)
	}
	env := map[string]string{}
	for _, e := range p.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	return RunPod(ctx, PodConfig{Client: typed(h.cs), Namespace: ns, Lease: env[EnvLease], Pod: env[EnvPod], InDir: dir,
		SessionDir: h.t.TempDir(), WorkDir: h.t.TempDir(), SpawnedBy: env[capsule.EnvSpawnedBy], DelegationID: env[capsule.EnvDelegationID],
		Stderr: io.Discard, Poll: 20 * time.Millisecond}, runner)
}

// answering is a ChildRunner that answers answer after the objective, as
// a sub-capsule with a session of its own.
func answering(answer []byte) ChildRunner {
	return func(ctx context.Context, cfg capsule.ChildConfig) session.ExitCode {
		obj, _ := io.ReadAll(cfg.Stdin)
		sess, err := session.Open(cfg.SessionDir, session.NewInfo("local/worker", "1.2.0", cfg.SpawnedBy, cfg.DelegationID))
		if err != nil {
			panic(err)
		}
		tr, _ := session.OpenTrace(filepath.Join(sess.Dir, sessionfmt.TraceFile), sess.Info.ID)
		tr.SessionStart("local/worker", "1.2.0", cfg.SpawnedBy, cfg.DelegationID)
		cfg.Status.Write([]byte(`{"up":true}` + "\n"))
		cfg.Stdout.Write(obj)
		cfg.Stdout.Write(answer)
		tr.SessionEnd(session.EndOK)
		tr.Close()
		cfg.Status.Write([]byte(`{"outcome":"completed"}` + "\n"))
		return session.ExitCompleted
	}
}

// TestSpawnPod: one capsule step is one Pod owned by the session's Lease,
// labelled with the session, plan and delegation, with the capsule's
// image and resources and the 5 s grace; its 10 MiB answer comes home
// whole through the output ConfigMaps, the step's result is cut at 64 KiB,
// and the delegation's objects are gone afterwards, the Lease at Close.
func TestSpawnPod(t *testing.T) {
	h := newHarness(t, roostCM("worker", "local/worker", workerManifest, KeyImage, "img:1", "run.sh", "#!/bin/sh\n",
		KeyResources, `{"limits": {"memory": "64Mi"}}`, KeyServiceAccount, "capsules"))
	// 10 MiB that gzip cannot shrink.
	big := make([]byte, 10<<20)
	for i, x := 0, uint32(1); i < len(big); i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		big[i] = byte(x)
	}
	var seen *corev1.Pod
	var seenIn *corev1.ConfigMap
	h.kubelet(func(p *corev1.Pod) {
		seen = p
		seenIn, _ = h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), p.Name+"-in", metav1.GetOptions{})
		h.setStatus(p, corev1.PodRunning, corev1.ContainerState{Running: &corev1.ContainerStateRunning{}})
		code := h.runPod(context.Background(), p, answering(big))
		h.setStatus(p, corev1.PodSucceeded, corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(code)}})
	})
	out, err := h.spawn(t.Context(), "w", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "do w") || len(out) > 70<<10 || !strings.Contains(out, "outputs/plan-1/w.1.txt") {
		t.Errorf("the step's result: %d bytes, %q…", len(out), out[:min(len(out), 80)])
	}
	dir := filepath.Join(h.task.Session.Dir, "delegations", "plan-1-w-1")
	ans, err := os.ReadFile(filepath.Join(dir, capsule.AnswerFile))
	if err != nil || !bytes.Equal(ans, append([]byte("do w"), big...)) {
		t.Errorf("answer.txt: %d bytes, %v", len(ans), err)
	}
	if kept, err := os.ReadFile(filepath.Join(h.task.Session.Dir, "outputs", "plan-1", "w.1.txt")); err != nil || !bytes.Equal(kept, ans) {
		t.Errorf("kept output: %d bytes, %v", len(kept), err)
	}
	if ev := testkit.Events(testkit.TraceLines(t, filepath.Join(dir, sessionfmt.TraceFile))); !slices.Equal(ev, []string{"session_start", "session_end:ok"}) {
		t.Errorf("the child's trace: %v", ev)
	}
	if obj, _ := os.ReadFile(filepath.Join(dir, capsule.ObjectiveFile)); string(obj) != "do w" {
		t.Errorf("objective.txt %q", obj)
	}

	// The objects.
	sid := h.task.Session.Info.ID
	lease, err := h.cs.CoordinationV1().Leases(ns).Get(t.Context(), LeaseName(sid), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *lease.Spec.LeaseDurationSeconds != 60 || lease.Spec.RenewTime == nil || !strings.Contains(*lease.Spec.HolderIdentity, sid) || lease.Annotations[AnnotationSession] != sid {
		t.Errorf("lease %+v", lease)
	}
	own := []metav1.OwnerReference{{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Name: lease.Name, UID: lease.UID}}
	if seen == nil || seenIn == nil {
		t.Fatal("the kubelet saw no Pod")
	}
	c := seen.Spec.Containers[0]
	wantLabels := map[string]string{LabelSession: labelValue(sid), LabelPlan: "p", LabelDelegation: "plan-1-w-1"}
	switch {
	case seen.Name != PodName(sid, "plan-1-w-1"):
		t.Errorf("pod name %s", seen.Name)
	case !equalMap(seen.Labels, wantLabels):
		t.Errorf("labels %v", seen.Labels)
	case seen.Annotations[AnnotationDelegation] != "plan-1-w-1" || seen.Annotations[AnnotationSession] != sid:
		t.Errorf("annotations %v", seen.Annotations)
	case !equalOwners(seen.OwnerReferences, own) || !equalOwners(seenIn.OwnerReferences, own):
		t.Errorf("owners %v %v", seen.OwnerReferences, seenIn.OwnerReferences)
	case seen.Spec.RestartPolicy != corev1.RestartPolicyNever || *seen.Spec.TerminationGracePeriodSeconds != 5 || seen.Spec.ServiceAccountName != "capsules":
		t.Errorf("spec %+v", seen.Spec)
	case c.Image != "img:1" || !slices.Equal(c.Command, []string{"planc", PodCommand, "--in", InDir, "--session", SessionDir, "--workdir", WorkDir}):
		t.Errorf("container %+v", c)
	case !c.Resources.Limits.Memory().Equal(resource.MustParse("64Mi")):
		t.Errorf("resources %+v", c.Resources)
	case seenIn.Data[capsule.ObjectiveFile] != "do w" || seenIn.Data[KeyManifest] != workerManifest || seenIn.Data["run.sh"] == "" || seenIn.Labels[LabelRole] != "input":
		t.Errorf("input %v", seenIn.Data)
	}
	// Gone once the results are home; the Lease at Close.
	if cms := h.configMaps(); !slices.Equal(cms, []string{"worker"}) {
		t.Errorf("ConfigMaps left: %v", cms)
	}
	if pods, _ := h.cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("Pods left: %d", len(pods.Items))
	}
	if err := h.l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.cs.CoordinationV1().Leases(ns).Get(t.Context(), LeaseName(sid), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the lease after Close: %v", err)
	}
	lines := testkit.TraceLines(t, filepath.Join(h.task.Session.Dir, sessionfmt.TraceFile))
	if ev := testkit.Events(lines); !slices.Equal(ev, []string{"delegation_start", "delegation"}) || lines[1]["outcome"] != "completed" || lines[0]["capsule"] != "local/worker" || lines[0]["version"] != "1.2.0" {
		t.Errorf("trace %v", lines)
	}
}

func equalMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func equalOwners(a, b []metav1.OwnerReference) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestImagePullRefusal: a Pod whose image cannot be pulled fails the step
// with the kubelet's reason and what to fix, and is deleted.
func TestImagePullRefusal(t *testing.T) {
	h := newHarness(t, roostCM("worker", "local/worker", workerManifest, KeyImage, "nosuch:1"))
	h.kubelet(func(p *corev1.Pod) {
		h.setStatus(p, corev1.PodPending, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: `failed to pull image "nosuch:1": not found`}})
	})
	_, err := h.spawn(t.Context(), "w", 1)
	want := `cannot spawn "local/worker": its Pod ` + PodName(h.task.Session.Info.ID, "plan-1-w-1") + ` cannot start: ErrImagePull: failed to pull image "nosuch:1": not found; push the image, or name one the cluster can pull in the "image" key of configmap/worker in namespace agents`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v\nwant %s", err, want)
	}
	if pods, _ := h.cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("Pods left: %d", len(pods.Items))
	}
}

// TestPodEndsWithoutResults: a Pod killed before it sent its results
// fails the step with how it ended and the last line of its log.
func TestPodEndsWithoutResults(t *testing.T) {
	h := newHarness(t, roostCM("worker", "local/worker", workerManifest, KeyImage, "img"))
	h.kubelet(func(p *corev1.Pod) {
		h.setStatus(p, corev1.PodFailed, corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}})
	})
	_, err := h.spawn(t.Context(), "w", 1)
	if err == nil || !strings.Contains(err.Error(), "(Failed, OOMKilled, exit status 137) before it sent its results: fake logs") {
		t.Errorf("err %v", err)
	}
}

// TestChildFails: the child's own reason is the delegation's.
func TestChildFails(t *testing.T) {
	h := newHarness(t, roostCM("worker", "local/worker", workerManifest, KeyImage, "img"))
	h.kubelet(func(p *corev1.Pod) {
		code := h.runPod(context.Background(), p, func(ctx context.Context, cfg capsule.ChildConfig) session.ExitCode {
			cfg.Stderr.Write([]byte("boom\n"))
			cfg.Status.Write([]byte(`{"outcome":"failed","reason":"its command ./run.sh exited with status 3"}` + "\n"))
			return session.ExitFailed
		})
		h.setStatus(p, corev1.PodFailed, corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(code)}})
	})
	_, err := h.spawn(t.Context(), "w", 1)
	if err == nil || !strings.HasSuffix(err.Error(), "failed: its command ./run.sh exited with status 3 (stderr: boom)") {
		t.Errorf("err %v", err)
	}
}

// TestCancel: a cancel deletes the Pod with gracePeriodSeconds 5; the
// kubelet's SIGTERM winds the child down, its results still come home,
// the launcher writes completion.json, and plan_end's task lines follow.
func TestCancel(t *testing.T) {
	h := newHarness(t, roostCM("worker", "local/worker", workerManifest, KeyImage, "img"))
	var mu sync.Mutex
	var graces []int64
	podCtx, sigterm := context.WithCancel(context.Background())
	kubeletDeletes := false
	// The fake clientset runs its reactors under one lock: this one only
	// notes the delete and sends the SIGTERM; the kubelet removes the
	// object once the child has exited.
	h.cs.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteActionImpl)
		mu.Lock()
		defer mu.Unlock()
		if kubeletDeletes {
			return false, nil, nil
		}
		if d.DeleteOptions.GracePeriodSeconds != nil {
			graces = append(graces, *d.DeleteOptions.GracePeriodSeconds)
		}
		sigterm()
		return true, nil, nil
	})
	h.kubelet(func(p *corev1.Pod) {
		h.runPod(podCtx, p, func(ctx context.Context, cfg capsule.ChildConfig) session.ExitCode {
			cfg.Status.Write([]byte(`{"up":true}` + "\n"))
			h.setStatus(p, corev1.PodRunning, corev1.ContainerState{Running: &corev1.ContainerStateRunning{}})
			<-ctx.Done()
			cfg.Stdout.Write([]byte("partial"))
			cfg.Status.Write([]byte(`{"outcome":"canceled","reason":"it was cancelled"}` + "\n"))
			return session.ExitCanceled
		})
		mu.Lock()
		kubeletDeletes = true
		mu.Unlock()
		h.cs.CoreV1().Pods(ns).Delete(context.Background(), p.Name, metav1.DeleteOptions{})
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		testkit.WaitEvent(t, filepath.Join(h.task.Session.Dir, sessionfmt.TraceFile), "delegation_start", 1)
		cancel()
	}()
	_, err := h.spawn(ctx, "w", 1)
	if err == nil || !strings.Contains(err.Error(), vm.CapsuleEnded) {
		t.Errorf("err %v", err)
	}
	mu.Lock()
	if len(graces) == 0 || graces[0] != 5 {
		t.Errorf("grace periods %v", graces)
	}
	mu.Unlock()
	dir := filepath.Join(h.task.Session.Dir, "delegations", "plan-1-w-1")
	var comp map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "completion.json"))
	if json.Unmarshal(b, &comp); comp["status"] != "terminated" || comp["reported_by"] != "launcher" {
		t.Errorf("completion.json %s", b)
	}
	if a, _ := os.ReadFile(filepath.Join(dir, capsule.AnswerFile)); string(a) != "partial" {
		t.Errorf("answer %q", a)
	}
	h.l.BeforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Canceled})
	ev := testkit.Events(testkit.TraceLines(t, filepath.Join(h.task.Session.Dir, sessionfmt.TraceFile)))
	if !slices.Equal(ev, []string{"delegation_start", "task_canceled", "delegation", "task_end"}) {
		t.Errorf("trace %v", ev)
	}
}

// TestLease: the parent renews its Lease; a child's lifeline ends when
// the Lease is no longer renewed within its duration, and when it is
// deleted.
func TestLease(t *testing.T) {
	h := newHarness(t)
	h.l.cfg.LeaseDuration = 300 * time.Millisecond
	lease, err := h.l.ensureLease(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	leases := h.cs.CoordinationV1().Leases(ns)
	first := lease.Spec.RenewTime.Time
	testkit.Eventually(t, 10*time.Second, "the lease renewed", func() bool {
		l, err := leases.Get(t.Context(), lease.Name, metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime.After(first)
	})
	pc := PodConfig{Client: typed(h.cs), Namespace: ns, Lease: lease.Name, Poll: 20 * time.Millisecond}
	life, stop := watchLease(t.Context(), pc, lease.Spec.LeaseDurationSeconds)
	defer stop()
	ended := make(chan struct{})
	go func() { io.Copy(io.Discard, life); close(ended) }()
	// Renewed for longer than the lease's duration (1 s, its whole
	// seconds) since the watch began: the lifeline still holds.
	began := time.Now()
	testkit.Eventually(t, 30*time.Second, "renewals for 1.5 s", func() bool {
		l, err := leases.Get(t.Context(), lease.Name, metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime.Time.Sub(began) > 1500*time.Millisecond
	})
	select {
	case <-ended:
		t.Fatal("the lifeline ended while the parent renews the lease")
	default:
	}
	// The parent is killed: renewals stop, the Lease stays.
	close(h.l.stopRenew)
	<-h.l.renewDone
	h.l.lease = nil
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the lifeline did not end once the lease was no longer renewed")
	}
	// Deleted: ends at the next poll.
	pc.Lease = "gone"
	leases.Create(t.Context(), &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}, metav1.CreateOptions{})
	life2, stop2 := watchLease(t.Context(), pc, nil)
	defer stop2()
	leases.Delete(t.Context(), "gone", metav1.DeleteOptions{})
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, life2); done <- err }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the lifeline did not end once the lease was deleted")
	}
}

// TestNames: the names and label values made from any session and
// delegation id are valid.
func TestNames(t *testing.T) {
	sid := "20261204T162506.123456789Z-0a1b2c"
	for _, id := range []string{"plan-1-w-1", "plan-12-" + strings.Repeat("Very_Long%2Fstep", 10) + "-3", "plan-1-%2E%2E-7"} {
		if errs := validation.IsDNS1123Label(PodName(sid, id)); len(errs) > 0 {
			t.Errorf("pod name %q: %v", PodName(sid, id), errs)
		}
		if errs := validation.IsValidLabelValue(labelValue(id)); len(errs) > 0 {
			t.Errorf("label %q: %v", labelValue(id), errs)
		}
	}
	if PodName(sid, "plan-1-a-1") == PodName(sid, "plan-1-A-1") {
		t.Error("two delegations, one Pod name")
	}
	if errs := validation.IsDNS1123Label(LeaseName(sid)); len(errs) > 0 {
		t.Errorf("lease name %q: %v", LeaseName(sid), errs)
	}
}

// TestUnpackRefusesEscape: results naming a path outside the delegation
// directory write nothing there.
func TestUnpackRefusesEscape(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "a"), 0o755)
	os.WriteFile(filepath.Join(src, "a", "x"), []byte("x"), 0o644)
	b, err := pack(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := unpack(b, dst); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(filepath.Join(dst, "a", "x")); string(x) != "x" {
		t.Errorf("a/x %q", x)
	}
	bad := evilTar(t)
	if err := unpack(bad, dst); err == nil || !strings.Contains(err.Error(), "outside the delegation directory") {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dst), "evil")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("evil written: %v", err)
	}
}

// TestConnectRefusal: with no kubeconfig and not in a cluster, Connect
// says how to name a cluster; with a kubeconfig naming no running
// cluster, that it cannot reach it.
func TestConnectRefusal(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, _, err := Connect(t.Context())
	if err == nil || !strings.Contains(err.Error(), "no Kubernetes cluster to run sub-capsules on") || !strings.Contains(err.Error(), "set KUBECONFIG") {
		t.Errorf("err %v", err)
	}
	kc := filepath.Join(home, "kubeconfig")
	os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600)
	t.Setenv("KUBECONFIG", kc)
	_, _, err = Connect(t.Context())
	if err == nil || !strings.Contains(err.Error(), "no Kubernetes cluster reachable at https://127.0.0.1:1") {
		t.Errorf("err %v", err)
	}
}

var _ kubernetes.Interface = (*fake.Clientset)(nil)
