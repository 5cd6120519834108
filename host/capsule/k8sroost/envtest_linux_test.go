package k8sroost

// The tests of this file run the backend against a real control plane:
// etcd and kube-apiserver started by controller-runtime's envtest from the
// binaries $KUBEBUILDER_ASSETS names (scripts/envtest-assets.sh builds
// them). They skip, saying so, when it is unset.
//
// The one part that is not the real thing is the kubelet: standIn plays
// its part for one Ready Node, "stand-in". It binds each Pod of the
// namespace to that Node (the scheduler's part), runs the Pod's command —
// the real planc binary's __capsule-k8s — as a local process with the
// input ConfigMap's files as its volume, writes the Pod's status, and
// honours a deletion with its grace period: SIGTERM, SIGKILL once the
// grace has passed, then the Pod's removal.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

var cp struct {
	once  sync.Once
	env   *envtest.Environment
	admin *rest.Config
	err   error
}

// controlPlane starts the control plane once for the package, or skips
// the test when there are no binaries.
func controlPlane(t *testing.T) (*envtest.Environment, *rest.Config) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is unset, so there is no control plane to test against; run KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh) go test ./host/capsule/k8sroost/")
	}
	cp.once.Do(func() {
		cp.env = &envtest.Environment{}
		cp.admin, cp.err = cp.env.Start()
	})
	if cp.err != nil {
		t.Fatalf("starting the control plane from %s: %v", os.Getenv("KUBEBUILDER_ASSETS"), cp.err)
	}
	return cp.env, cp.admin
}

func stopControlPlane() {
	if c := clusterOnce.c; c != nil {
		c.standIn.stop() // before the control plane, so its watch ends first
	}
	if cp.env != nil && cp.err == nil {
		cp.env.Stop()
	}
}

// docsYAML is every ```yaml block of docs/kubernetes.md, its objects
// decoded.
func docsYAML(t *testing.T) []runtime.Object {
	b, err := os.ReadFile("../../../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		for _, doc := range strings.Split(m[1], "\n---\n") {
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("docs/kubernetes.md: %v\n%s", err, doc)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

// apply creates objs as the administrator.
func apply(t *testing.T, cs kubernetes.Interface, objs []runtime.Object) {
	ctx := context.Background()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Namespace:
			_, err = cs.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = cs.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ConfigMap:
			_, err = cs.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("apply: %T", o)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("apply %T: %v", o, err)
		}
	}
}

// cluster is the docs' namespace on the control plane, with the planc
// service account's client and kubeconfig and a stand-in kubelet.
type cluster struct {
	admin, sa  kubernetes.Interface
	saConfig   []byte
	standIn    *standIn
	namespaces string
}

var clusterOnce struct {
	once sync.Once
	c    *cluster
	err  error
}

func docsCluster(t *testing.T) *cluster {
	env, admin := controlPlane(t)
	clusterOnce.once.Do(func() {
		acs, err := kubernetes.NewForConfig(admin)
		if err != nil {
			clusterOnce.err = err
			return
		}
		apply(t, acs, docsYAML(t))
		u, err := env.AddUser(envtest.User{Name: "system:serviceaccount:agents:planc", Groups: []string{"system:serviceaccounts", "system:authenticated"}}, admin)
		if err != nil {
			clusterOnce.err = err
			return
		}
		kc, err := u.KubeConfig()
		if err != nil {
			clusterOnce.err = err
			return
		}
		sa, err := kubernetes.NewForConfig(u.Config())
		if err != nil {
			clusterOnce.err = err
			return
		}
		c := &cluster{admin: acs, sa: sa, saConfig: kc}
		c.standIn = startStandIn(acs, "agents", testkit.PlancBinary(t), kc)
		clusterOnce.c = c
	})
	if clusterOnce.err != nil {
		t.Fatal(clusterOnce.err)
	}
	return clusterOnce.c
}

// standIn plays the kubelet's part (the file's doc).
type standIn struct {
	ctx      context.Context // ended by stop
	stop     context.CancelFunc
	cs       kubernetes.Interface
	ns       string
	planc    string
	kubeconf string
	mu       sync.Mutex
	procs    map[string]*podProc
	// graces are the grace periods of the deletions it saw, by Pod.
	graces map[string]int64
}

type podProc struct {
	cmd     *exec.Cmd
	dir     string
	done    chan struct{}
	deleted bool
}

func startStandIn(cs kubernetes.Interface, ns, planc string, kubeconfig []byte) *standIn {
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "stand-in"}}
	if n, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err == nil {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), Reason: "StandIn"}}
		cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	}
	dir, _ := os.MkdirTemp("", "planc-standin-")
	kc := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kc, kubeconfig, 0o600)
	k := &standIn{cs: cs, ns: ns, planc: planc, kubeconf: kc, procs: map[string]*podProc{}, graces: map[string]int64{}}
	k.ctx, k.stop = context.WithCancel(ctx)
	go k.loop()
	return k
}

func (k *standIn) loop() {
	pods := k.cs.CoreV1().Pods(k.ns)
	rv := ""
	for failed := 0; ; {
		w, err := pods.Watch(k.ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			if k.ctx.Err() != nil {
				return // stop: the control plane is stopping
			}
			// A live control plane refused the watch (an expired
			// resource version, say): watch afresh from now, pausing
			// only when that fails again.
			rv, failed = "", failed+1
			if failed > 1 {
				select {
				case <-k.ctx.Done():
					return
				case <-time.After(time.Duration(min(failed, 10)) * 100 * time.Millisecond):
				}
			}
			continue
		}
		failed = 0
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				rv = "" // expired: the next watch starts from now
				continue
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			rv = p.ResourceVersion
			if ev.Type != watch.Deleted {
				k.sync(p)
			}
		}
		if k.ctx.Err() != nil {
			return
		}
	}
}

// sync does the kubelet's part for one Pod as it is now.
func (k *standIn) sync(p *corev1.Pod) {
	ctx := context.Background()
	pods := k.cs.CoreV1().Pods(k.ns)
	k.mu.Lock()
	defer k.mu.Unlock()
	proc := k.procs[p.Name]
	switch {
	case p.DeletionTimestamp != nil:
		if proc == nil || proc.deleted {
			if proc == nil {
				zero := int64(0)
				pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
			}
			return
		}
		proc.deleted = true
		grace := int64(0)
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		k.graces[p.Name] = grace
		proc.cmd.Process.Signal(syscall.SIGTERM)
		go func() {
			select {
			case <-proc.done:
			case <-time.After(time.Duration(grace) * time.Second):
				proc.cmd.Process.Kill()
				<-proc.done
			}
			zero := int64(0)
			pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		}()
	case p.Spec.NodeName == "":
		pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name}, Target: corev1.ObjectReference{Kind: "Node", Name: "stand-in"}}, metav1.CreateOptions{})
	case proc == nil && p.Status.Phase == corev1.PodPending:
		proc, err := k.start(p)
		if err != nil {
			k.status(p.Name, corev1.PodPending, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: err.Error()}})
			return
		}
		if proc == nil {
			return // its image cannot be pulled: it stays Pending
		}
		k.procs[p.Name] = proc
		k.status(p.Name, corev1.PodRunning, corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}})
		go func() {
			err := proc.cmd.Wait()
			code := int32(0)
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = int32(ee.ExitCode())
			}
			phase := corev1.PodSucceeded
			if err != nil {
				phase = corev1.PodFailed
			}
			k.status(p.Name, phase, corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}})
			close(proc.done)
		}()
	}
}

// start runs a Pod's container command: planc from the test build for
// the image's planc, the volumes as directories.
func (k *standIn) start(p *corev1.Pod) (*podProc, error) {
	ctx := context.Background()
	c := p.Spec.Containers[0]
	if c.Image == "unpullable:1" {
		k.status(p.Name, corev1.PodPending, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: `failed to pull image "unpullable:1": not found`}})
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "planc-pod-")
	if err != nil {
		return nil, err
	}
	mounts := map[string]string{}
	for _, v := range p.Spec.Volumes {
		d := filepath.Join(dir, v.Name)
		os.Mkdir(d, 0o755)
		if v.ConfigMap != nil {
			cm, err := k.cs.CoreV1().ConfigMaps(k.ns).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			for name, data := range cm.Data {
				os.WriteFile(filepath.Join(d, name), []byte(data), os.FileMode(*v.ConfigMap.DefaultMode))
			}
		}
		mounts[v.Name] = d
	}
	path := func(s string) string {
		for _, m := range c.VolumeMounts {
			if rest, ok := strings.CutPrefix(s, m.MountPath); ok {
				return mounts[m.Name] + rest
			}
		}
		return s
	}
	var args []string
	for _, a := range c.Command[1:] {
		args = append(args, path(a))
	}
	cmd := exec.Command(k.planc, args...)
	cmd.Dir = path(c.WorkingDir)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.kubeconf)
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace" {
			v = p.Namespace
		}
		cmd.Env = append(cmd.Env, e.Name+"="+v)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &podProc{cmd: cmd, dir: dir, done: make(chan struct{})}, nil
}

func (k *standIn) status(name string, phase corev1.PodPhase, st corev1.ContainerState) {
	ctx := context.Background()
	p, err := k.cs.CoreV1().Pods(k.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return
	}
	p.Status.Phase = phase
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "capsule", Image: p.Spec.Containers[0].Image, State: st}}
	k.cs.CoreV1().Pods(k.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
}

// capsuleCM is a roost ConfigMap of local/NAME whose command is script.
func capsuleCM(t *testing.T, c *cluster, name, image, script string) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "agents", Labels: map[string]string{LabelNamespace: "local", LabelName: name}},
		Data: map[string]string{
			KeyManifest: fmt.Sprintf(`{"name": "local/%s", "entrypoint": {"command": ["./run.sh"]}}`, name),
			"run.sh":    "#!/bin/sh\n" + script, KeyImage: image,
		},
	}
	c.admin.CoreV1().ConfigMaps("agents").Delete(context.Background(), name, metav1.DeleteOptions{})
	if _, err := c.admin.CoreV1().ConfigMaps("agents").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// parent is a parent session whose capsule allows allow, spawning on cs.
func parent(t *testing.T, cs kubernetes.Interface, allow ...string) (*Launcher, *session.Task) {
	sess, err := session.Create(filepath.Join(t.TempDir(), "sessions"), sessionfmt.SessionInfo{Capsule: "local/top"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.OpenTrace(filepath.Join(sess.Dir, sessionfmt.TraceFile), sess.Info.ID)
	if err != nil {
		t.Fatal(err)
	}
	task := &session.Task{Session: sess, Trace: tr, Plan: &session.PlanFile{N: 1}, WorkDir: t.TempDir()}
	l := New(Config{Client: typed(cs), Namespace: "agents", Task: task, From: "local/top", Allow: allow, Grace: 5 * time.Second})
	t.Cleanup(func() { l.Close(); task.Close(); tr.Close() })
	return l, task
}

func call(step, target, objective string) vm.Call {
	return vm.Call{PlanID: "p", Step: &ir.Step{ID: step, Kind: ir.KindCapsule, Target: target}, Attempt: 1, Objective: objective}
}

// TestClusterThreeInParallel: three capsule steps at once, as the planc
// service account of the docs' YAML, complete with three answers, each
// with the child's trace in its delegation directory.
func TestClusterThreeInParallel(t *testing.T) {
	c := docsCluster(t)
	capsuleCM(t, c, "echoer", "img:1", "read -r o; echo \"answer to $o\"\n")
	l, task := parent(t, c.sa, "local/echoer")
	var wg sync.WaitGroup
	outs, errs := make([]string, 3), make([]error, 3)
	for i := range 3 {
		wg.Go(func() {
			outs[i], errs[i] = l.Spawn(t.Context(), call(fmt.Sprint("s", i), "echoer", fmt.Sprint("job ", i)))
		})
	}
	wg.Wait()
	for i := range 3 {
		if errs[i] != nil || outs[i] != fmt.Sprintf("answer to job %d\n", i) {
			t.Errorf("step %d: %q %v", i, outs[i], errs[i])
		}
		dir := filepath.Join(task.Session.Dir, "delegations", fmt.Sprintf("plan-1-s%d-1", i))
		if ev := testkit.Events(testkit.TraceLines(t, filepath.Join(dir, sessionfmt.TraceFile))); !slices.Equal(ev, []string{"session_start", "session_end:ok"}) {
			t.Errorf("step %d: the child's trace %v", i, ev)
		}
	}
	if pods, _ := c.admin.CoreV1().Pods("agents").List(t.Context(), metav1.ListOptions{LabelSelector: LabelSession + "=" + labelValue(task.Session.Info.ID)}); len(pods.Items) != 0 {
		t.Errorf("Pods left: %d", len(pods.Items))
	}
}

// TestClusterLargeAnswer: a 10 MiB answer that gzip cannot shrink arrives
// whole through a real API server's ConfigMaps.
func TestClusterLargeAnswer(t *testing.T) {
	c := docsCluster(t)
	capsuleCM(t, c, "big", "img:1", "head -c 10485760 /dev/urandom | tee answer.copy\n")
	l, task := parent(t, c.sa, "local/big")
	out, err := l.Spawn(t.Context(), call("big", "big", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 70<<10 {
		t.Errorf("the step's result is %d bytes, not cut", len(out))
	}
	dir := filepath.Join(task.Session.Dir, "delegations", "plan-1-big-1")
	ans, err := os.ReadFile(filepath.Join(dir, capsule.AnswerFile))
	if err != nil || len(ans) != 10<<20 {
		t.Fatalf("answer.txt: %d bytes, %v", len(ans), err)
	}
	// The copy the command left in its working directory, in the Pod.
	var copyOf []byte
	c.standIn.mu.Lock()
	for _, p := range c.standIn.procs {
		if b, err := os.ReadFile(filepath.Join(p.dir, "work", "answer.copy")); err == nil {
			copyOf = b
		}
	}
	c.standIn.mu.Unlock()
	if !bytes.Equal(copyOf, ans) {
		t.Errorf("the answer that came home is not the one the command wrote (%d bytes there)", len(copyOf))
	}
}

// TestClusterCancel: a cancel deletes the Pod with gracePeriodSeconds 5;
// the child winds down on the SIGTERM, writes session_end canceled, and
// the launcher completion.json.
func TestClusterCancel(t *testing.T) {
	c := docsCluster(t)
	capsuleCM(t, c, "sleeper", "img:1", "echo started >&2\nwhile :; do sleep 0.1; done\n")
	l, task := parent(t, c.sa, "local/sleeper")
	ctx, cancel := context.WithCancel(t.Context())
	pod := PodName(task.Session.Info.ID, "plan-1-z-1")
	go func() {
		testkit.WaitEvent(t, filepath.Join(task.Session.Dir, sessionfmt.TraceFile), "delegation_start", 1)
		// Cancelled once the child's planc has begun its session (and so
		// handles SIGTERM): before that, the SIGTERM would end it before
		// it could say anything, and only the launcher's records remain.
		c.standIn.mu.Lock()
		dir := c.standIn.procs[pod].dir
		c.standIn.mu.Unlock()
		testkit.WaitEvent(t, filepath.Join(dir, "session", sessionfmt.TraceFile), "session_start", 1)
		cancel()
	}()
	began := time.Now()
	_, err := l.Spawn(ctx, call("z", "sleeper", "x"))
	if err == nil || !strings.Contains(err.Error(), vm.CapsuleEnded) {
		t.Errorf("err %v", err)
	}
	if d := time.Since(began); d > time.Minute {
		t.Errorf("the cancel took %v", d)
	}
	c.standIn.mu.Lock()
	grace, seen := c.standIn.graces[pod]
	c.standIn.mu.Unlock()
	if !seen || grace != 5 {
		t.Errorf("the deletion's grace period: %d (seen %v)", grace, seen)
	}
	dir := filepath.Join(task.Session.Dir, "delegations", "plan-1-z-1")
	if b, err := os.ReadFile(filepath.Join(dir, "completion.json")); err != nil || !strings.Contains(string(b), `"reported_by": "launcher"`) && !strings.Contains(string(b), `"reported_by":"launcher"`) {
		t.Errorf("completion.json %s %v", b, err)
	}
	if ev := testkit.Events(testkit.TraceLines(t, filepath.Join(dir, sessionfmt.TraceFile))); !slices.Equal(ev, []string{"session_start", "session_end:canceled"}) {
		t.Errorf("the child's trace %v", ev)
	}
	l.BeforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Canceled})
	if ev := testkit.Events(testkit.TraceLines(t, filepath.Join(task.Session.Dir, sessionfmt.TraceFile))); !slices.Equal(ev, []string{"delegation_start", "task_canceled", "delegation", "task_end"}) {
		t.Errorf("the parent's trace %v", ev)
	}
}

// TestClusterParentGone: when the parent stops renewing its Lease (as a
// kill -9 leaves it), the child ends within the Lease's duration plus the
// grace, records spawner_ended and writes no completion.json.
func TestClusterParentGone(t *testing.T) {
	c := docsCluster(t)
	capsuleCM(t, c, "orphan", "img:1", "while :; do sleep 0.1; done\n")
	l, task := parent(t, c.sa, "local/orphan")
	l.cfg.LeaseDuration = 3 * time.Second
	done := make(chan error, 1)
	go func() {
		_, err := l.Spawn(context.Background(), call("o", "orphan", "x"))
		done <- err
	}()
	testkit.WaitEvent(t, filepath.Join(task.Session.Dir, sessionfmt.TraceFile), "delegation_start", 1)
	close(l.stopRenew) // the parent's renewals end; its Lease stays
	<-l.renewDone
	l.lease = nil
	stopped := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the child did not end once its Lease was no longer renewed")
	}
	if d := time.Since(stopped); d > 3*time.Second+5*time.Second+15*time.Second {
		t.Errorf("the child ended %v after the last renewal", d)
	}
	if err == nil {
		t.Error("a child whose parent is gone completed")
	}
	dir := filepath.Join(task.Session.Dir, "delegations", "plan-1-o-1")
	if ev := testkit.Events(testkit.TraceLines(t, filepath.Join(dir, sessionfmt.TraceFile))); !slices.Contains(ev, "spawner_ended") {
		t.Errorf("the child's trace %v", ev)
	}
	if _, err := os.Stat(filepath.Join(dir, "completion.json")); !os.IsNotExist(err) {
		t.Errorf("completion.json: %v", err)
	}
}

// TestClusterRefusals: a user the Role is not bound to is refused, with
// the verb, the resource and the Role; the planc service account may not
// read Secrets; an image the stand-in cannot pull fails with its reason.
func TestClusterRefusals(t *testing.T) {
	c := docsCluster(t)
	env, admin := controlPlane(t)
	u, err := env.AddUser(envtest.User{Name: "stranger", Groups: []string{"system:authenticated"}}, admin)
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := kubernetes.NewForConfig(u.Config())
	l, _ := parent(t, stranger, "local/echoer")
	_, err = l.Spawn(t.Context(), call("s", "echoer", "x"))
	if err == nil || !strings.Contains(err.Error(), `the cluster's RBAC forbids planc to list configmaps in namespace agents`) || !strings.Contains(err.Error(), `"planc-roost"`) {
		t.Errorf("err %v", err)
	}
	if _, err := c.sa.CoreV1().Secrets("agents").List(t.Context(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the planc service account lists Secrets: %v", err)
	}
	capsuleCM(t, c, "nopull", "unpullable:1", "true\n")
	l2, _ := parent(t, c.sa, "local/nopull")
	_, err = l2.Spawn(t.Context(), call("n", "nopull", "x"))
	if err == nil || !strings.Contains(err.Error(), `cannot start: ErrImagePull: failed to pull image "unpullable:1": not found; push the image`) {
		t.Errorf("err %v", err)
	}
}

// plancRun starts `planc run --roost k8s:agents` of plan in a fresh
// directory, as the planc service account, with a capsule that may spawn
// allow; it returns the command, its output buffers and the directory.
func plancRun(t *testing.T, c *cluster, plan string, allow string, env ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, string) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "capsule.json"), []byte(`{"name": "local/top", "capabilities": {"plan": {"submit": true}, "spawn": {"allow": ["`+allow+`"]}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644)
	cmd := exec.Command(testkit.PlancBinary(t), "run", "--quiet", "--capsule", "capsule.json", "--roost", "k8s:agents", "plan.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.standIn.kubeconf)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, &errb, dir
}

// TestClusterPlancRun: planc run --roost k8s:agents runs a plan whose
// three capsule steps run at once as Pods and answer.
func TestClusterPlancRun(t *testing.T) {
	c := docsCluster(t)
	testkit.NeedScope(t)
	capsuleCM(t, c, "echoer", "img:1", "read -r o; echo \"answer to $o\"\n")
	cmd, out, errb, _ := plancRun(t, c, `{"id": "fan", "steps": [
  {"id": "a", "capsule": "echoer", "input": "A"},
  {"id": "b", "capsule": "echoer", "input": "B"},
  {"id": "c", "capsule": "echoer", "input": "C"}
]}`, "local/echoer")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("planc run: %v\n%s%s", err, out, errb)
	}
	for _, x := range []string{"A", "B", "C"} {
		if !strings.Contains(out.String(), `answer to `+x) {
			t.Errorf("no answer to %s in\n%s", x, out)
		}
	}
}

// TestClusterKill9: kill -9 of the parent planc: its Lease is no longer
// renewed, and the child records spawner_ended and ends within the Lease's
// duration plus the grace, writing no completion.json.
func TestClusterKill9(t *testing.T) {
	c := docsCluster(t)
	testkit.NeedScope(t)
	capsuleCM(t, c, "forever", "img:1", "while :; do sleep 0.1; done\n")
	cmd, out, errb, _ := plancRun(t, c, `{"id": "k", "steps": [{"id": "f", "capsule": "forever", "input": "x"}]}`, "local/forever",
		EnvLeaseDuration+"=3s")
	var proc *podProc
	testkit.Eventually(t, 2*time.Minute, "the child's session_start", func() bool {
		c.standIn.mu.Lock()
		defer c.standIn.mu.Unlock()
		for name, p := range c.standIn.procs {
			if strings.HasPrefix(name, "planc-plan-1-f-1-") && p != nil && !p.deleted {
				if _, err := os.Stat(filepath.Join(p.dir, "session", sessionfmt.TraceFile)); err == nil {
					proc = p
					return true
				}
			}
		}
		return false
	})
	testkit.WaitEvent(t, filepath.Join(proc.dir, "session", sessionfmt.TraceFile), "session_start", 1)
	cmd.Process.Kill()
	cmd.Wait()
	killed := time.Now()
	select {
	case <-proc.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the child still runs 2 minutes after its parent's kill -9\n%s%s", out, errb)
	}
	if d := time.Since(killed); d > 3*time.Second+5*time.Second+10*time.Second {
		t.Errorf("the child ended %v after its parent's kill -9", d)
	}
	if ev := testkit.Events(testkit.TraceLines(t, filepath.Join(proc.dir, "session", sessionfmt.TraceFile))); !slices.Equal(ev, []string{"session_start", "spawner_ended"}) {
		t.Errorf("the child's trace %v", ev)
	}
	if _, err := os.Stat(filepath.Join(proc.dir, "session", "completion.json")); !os.IsNotExist(err) {
		t.Errorf("completion.json: %v", err)
	}
}

// TestClusterRedrive: a capsule step's second attempt (a retry, or a
// redrive, which numbers its attempts on) is a fresh Pod with a new
// delegation id.
func TestClusterRedrive(t *testing.T) {
	c := docsCluster(t)
	capsuleCM(t, c, "flaky", "img:1", "read -r o; [ \"$o\" = ok ] || { echo \"not ok: $o\" >&2; exit 1; }; echo fine\n")
	l, task := parent(t, c.sa, "local/flaky")
	first := call("f", "flaky", "bad")
	if _, err := l.Spawn(t.Context(), first); err == nil || !strings.Contains(err.Error(), "not ok: bad") {
		t.Errorf("attempt 1: %v", err)
	}
	second := call("f", "flaky", "ok")
	second.Attempt = 2
	if out, err := l.Spawn(t.Context(), second); err != nil || out != "fine\n" {
		t.Errorf("attempt 2: %q %v", out, err)
	}
	lines := testkit.TraceLines(t, filepath.Join(task.Session.Dir, sessionfmt.TraceFile))
	var ids []string
	for _, x := range lines {
		if x["event"] == "delegation" {
			ids = append(ids, fmt.Sprint(x["delegation_id"], " ", x["outcome"]))
		}
	}
	if !slices.Equal(ids, []string{"plan-1-f-1 failed", "plan-1-f-2 completed"}) {
		t.Errorf("delegations %v", ids)
	}
	c.standIn.mu.Lock()
	_, p1 := c.standIn.procs[PodName(task.Session.Info.ID, "plan-1-f-1")]
	_, p2 := c.standIn.procs[PodName(task.Session.Info.ID, "plan-1-f-2")]
	c.standIn.mu.Unlock()
	if !p1 || !p2 {
		t.Errorf("Pods run: first %v, second %v", p1, p2)
	}
}

// TestClusterGarbageCollector: when the parent ends normally it deletes
// its Lease, and the cluster's garbage collector (kube-controller-manager's,
// started here from $KUBEBUILDER_ASSETS when it was built there) removes
// what the Lease owned.
func TestClusterGarbageCollector(t *testing.T) {
	c := docsCluster(t)
	env, admin := controlPlane(t)
	kcm := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-controller-manager")
	if _, err := os.Stat(kcm); err != nil {
		t.Skipf("no kube-controller-manager in $KUBEBUILDER_ASSETS (scripts/envtest-assets.sh builds it): %v", err)
	}
	u, err := env.AddUser(envtest.User{Name: "kcm", Groups: []string{"system:masters"}}, admin)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "kubeconfig"), kc, 0o600)
	cmd := exec.Command(kcm, "--kubeconfig="+filepath.Join(dir, "kubeconfig"), "--controllers=garbagecollector",
		"--leader-elect=false", "--secure-port=0", "--cert-dir="+dir)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()

	l, _ := parent(t, c.sa, "local/echoer")
	lease, err := l.ensureLease(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	owned := &corev1.ConfigMap{ObjectMeta: l.meta(lease, "planc-gc-probe", "p", "plan-1-x-1")}
	if _, err := c.sa.CoreV1().ConfigMaps("agents").Create(t.Context(), owned, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if !testkit.Within(2*time.Minute, func() bool {
		_, err := c.admin.CoreV1().ConfigMaps("agents").Get(context.Background(), "planc-gc-probe", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}) {
		t.Fatalf("what the Lease owned is still there after its deletion; kube-controller-manager said:\n%s", logs.String())
	}
}
