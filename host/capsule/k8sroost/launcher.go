package k8sroost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/procexit"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/vm"
)

// DefaultLeaseDuration is how long a session's Lease holds without a
// renewal: the parent renews it three times as often, and a child whose
// parent has not renewed it for this long ends.
const DefaultLeaseDuration = 30 * time.Second

// EnvLeaseDuration, a Go duration of at least a second, replaces
// DefaultLeaseDuration; for tests.
const EnvLeaseDuration = "PLANC_K8S_LEASE_DURATION"

// The environment of a capsule's Pod, beside capsule.EnvSpawnedBy,
// capsule.EnvDelegationID and capsule.EnvDelegationDepth.
const (
	EnvNamespace = "PLANC_K8S_NAMESPACE"
	EnvLease     = "PLANC_K8S_LEASE"
	EnvPod       = "PLANC_K8S_POD"
)

// PodCommand is the hidden planc subcommand a capsule's Pod runs (RunPod).
const PodCommand = "__capsule-k8s"

// The paths in a capsule's Pod: the input ConfigMap, the session
// directory and the working directory.
const (
	InDir      = "/planc/in"
	SessionDir = "/planc/session"
	WorkDir    = "/planc/work"
)

// Config is what a Launcher needs.
type Config struct {
	// Client is the cluster; Namespace the roost's namespace.
	Client    Client
	Namespace string
	// Task is the plan's task in the parent's session.
	Task *session.Task
	// From is the spawning capsule's name, Allow its
	// capabilities.spawn.allow; Depth this session's delegation depth.
	From  string
	Allow []string
	Depth int
	// Grace is the Pods' gracePeriodSeconds, rounded up to a second;
	// 0 is capsule.Grace().
	Grace time.Duration
	// LeaseDuration is the Lease's duration; 0 is DefaultLeaseDuration.
	LeaseDuration time.Duration
	// Resync bounds how long a change to a Pod can go unseen when its
	// watch misses it; 0 is 10 s.
	Resync time.Duration
}

// Launcher runs the capsule steps of one plan as Pods: the counterpart of
// capsule.Launcher for a roost on a cluster.
type Launcher struct {
	cfg Config

	leaseOnce sync.Once
	lease     *coordv1.Lease
	leaseErr  error
	stopRenew chan struct{}
	renewDone chan struct{}

	ended capsule.Ended
}

// New returns the launcher of cfg. Nothing is written to the cluster
// until the first capsule step: a plan without one needs no cluster.
func New(cfg Config) *Launcher {
	if cfg.Grace <= 0 {
		cfg.Grace = capsule.Grace()
	}
	if d, err := time.ParseDuration(os.Getenv(EnvLeaseDuration)); cfg.LeaseDuration <= 0 && err == nil && d >= time.Second {
		cfg.LeaseDuration = d
	}
	if cfg.LeaseDuration <= 0 {
		cfg.LeaseDuration = DefaultLeaseDuration
	}
	if cfg.Resync <= 0 {
		cfg.Resync = 10 * time.Second
	}
	return &Launcher{cfg: cfg}
}

// graceSeconds is the grace in whole seconds, at least 1.
func (l *Launcher) graceSeconds() int64 {
	return max(1, int64(math.Ceil(l.cfg.Grace.Seconds())))
}

// ensureLease creates the session's Lease once and starts renewing it.
func (l *Launcher) ensureLease(ctx context.Context) (*coordv1.Lease, error) {
	l.leaseOnce.Do(func() {
		ns, sid := l.cfg.Namespace, l.cfg.Task.Session.Info.ID
		secs := int32(max(1, l.cfg.LeaseDuration/time.Second))
		now := metav1.NewMicroTime(time.Now())
		holder, _ := os.Hostname()
		holder = fmt.Sprintf("planc %s on %s (pid %d)", sid, holder, os.Getpid())
		want := &coordv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: LeaseName(sid), Namespace: ns,
				Labels:      map[string]string{LabelSession: labelValue(sid), LabelRole: "lease"},
				Annotations: map[string]string{AnnotationSession: sid}},
			Spec: coordv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now},
		}
		leases := l.cfg.Client.CoordinationV1().Leases(ns)
		got, err := leases.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// A planc before this one in the same session (a --resume):
			// this one holds it now.
			if got, err = leases.Get(ctx, want.Name, metav1.GetOptions{}); err == nil {
				got.Spec = want.Spec
				got, err = leases.Update(ctx, got, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			l.leaseErr = apiRefusal(err, "create", "leases", ns, "hold the session's lease")
			return
		}
		l.lease = got
		l.stopRenew, l.renewDone = make(chan struct{}), make(chan struct{})
		go l.renew(got.Name)
	})
	return l.lease, l.leaseErr
}

// renew renews the Lease every third of its duration until Close.
func (l *Launcher) renew(name string) {
	defer close(l.renewDone)
	leases := l.cfg.Client.CoordinationV1().Leases(l.cfg.Namespace)
	t := time.NewTicker(l.cfg.LeaseDuration / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stopRenew:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.LeaseDuration/3)
		if cur, err := leases.Get(ctx, name, metav1.GetOptions{}); err == nil {
			now := metav1.NewMicroTime(time.Now())
			cur.Spec.RenewTime = &now
			leases.Update(ctx, cur, metav1.UpdateOptions{}) // a miss is made up at the next tick
		}
		cancel()
	}
}

// Close stops renewing the session's Lease and deletes it: the cluster's
// garbage collector then removes every object owned by it that is left.
func (l *Launcher) Close() error {
	if l == nil || l.lease == nil {
		return nil
	}
	close(l.stopRenew)
	<-l.renewDone
	name := l.lease.Name
	l.lease = nil
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bg := metav1.DeletePropagationBackground
	err := l.cfg.Client.CoordinationV1().Leases(l.cfg.Namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &bg})
	if err != nil && !apierrors.IsNotFound(err) {
		return apiRefusal(err, "delete", "leases", l.cfg.Namespace, "end the session's lease")
	}
	return nil
}

// delegationID is capsule.Launcher's: plan-<n>-<step>-<attempt>.
func (l *Launcher) delegationID(c vm.Call) string {
	return l.cfg.Task.ID() + "-" + sessionfmt.StepFileName(c.Step.ID) + "-" + strconv.Itoa(c.Attempt)
}

// Spawn runs one attempt of a capsule step as a Pod, as
// capsule.Launcher.Spawn runs it as a process: the answer comes back cut
// to 64 KiB and is kept whole.
func (l *Launcher) Spawn(ctx context.Context, c vm.Call) (string, error) {
	dir, err := l.spawn(ctx, c)
	if dir == "" {
		return l.cfg.Task.Keep(c.Step.ID, c.Attempt, "", err)
	}
	answer, aerr := l.cfg.Task.KeepFile(c.Step.ID, c.Attempt, filepath.Join(dir, capsule.AnswerFile))
	switch {
	case aerr == nil:
	case err == nil:
		err = fmt.Errorf("its answer: %w", aerr)
	case !errors.Is(aerr, fs.ErrNotExist):
		err = errors.Join(err, fmt.Errorf("its answer: %w", aerr))
	}
	return answer, err
}

// ownerRef is the ownerReference of every object made for a delegation:
// the session's Lease.
func ownerRef(lease *coordv1.Lease) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Name: lease.Name, UID: lease.UID}
}

// meta is the metadata of a delegation's objects.
func (l *Launcher) meta(lease *coordv1.Lease, name, planID, id string) metav1.ObjectMeta {
	sid := l.cfg.Task.Session.Info.ID
	return metav1.ObjectMeta{
		Name: name, Namespace: l.cfg.Namespace,
		Labels:          map[string]string{LabelSession: labelValue(sid), LabelPlan: labelValue(planID), LabelDelegation: labelValue(id)},
		Annotations:     map[string]string{AnnotationSession: sid, AnnotationDelegation: id},
		OwnerReferences: []metav1.OwnerReference{ownerRef(lease)},
	}
}

// maxInput bounds the input ConfigMap's data: a ConfigMap holds 1 MiB.
const maxInput = 1000 << 10

// spawn runs the Pod of one attempt and returns its delegation directory
// ("" when no Pod started) and the attempt's error.
func (l *Launcher) spawn(ctx context.Context, c vm.Call) (string, error) {
	cs, ns := l.cfg.Client, l.cfg.Namespace
	rc, err := Resolve(ctx, cs, ns, c.Step.Target, l.cfg.From, l.cfg.Allow)
	if err != nil {
		return "", err
	}
	if l.cfg.Depth >= capsule.MaxDelegationDepth {
		return "", fmt.Errorf("cannot spawn %q: sub-capsules already nest %d deep, the most planc allows", rc.Name, l.cfg.Depth)
	}
	lease, err := l.ensureLease(ctx)
	if err != nil {
		return "", fmt.Errorf("cannot spawn %q: %w", rc.Name, err)
	}
	id := l.delegationID(c)
	sid := l.cfg.Task.Session.Info.ID
	pod := PodName(sid, id)
	in := map[string]string{}
	size := len(c.Objective)
	for k, v := range rc.Files {
		in[k] = v
		size += len(k) + len(v)
	}
	in[capsule.ObjectiveFile] = c.Objective
	if size > maxInput {
		return "", fmt.Errorf("cannot spawn %q: its objective and the files of configmap/%s are %d bytes, over the %d a ConfigMap carries to its Pod", rc.Name, rc.ConfigMap, size, maxInput)
	}
	dir := filepath.Join(l.cfg.Task.Session.Dir, sessionfmt.DelegationsDir, id)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, capsule.ObjectiveFile), []byte(c.Objective), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	inMeta := l.meta(lease, pod+"-in", c.PlanID, id)
	inMeta.Labels[LabelRole] = "input"
	bg := context.WithoutCancel(ctx)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, &corev1.ConfigMap{ObjectMeta: inMeta, Data: in}, metav1.CreateOptions{}); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("cannot spawn %q: %w", rc.Name, apiRefusal(err, "create", "configmaps", ns, "hand the sub-capsule its objective"))
	}
	spec := l.podSpec(lease, rc, pod, c.PlanID, id)
	if _, err := cs.CoreV1().Pods(ns).Create(bg, spec, metav1.CreateOptions{}); err != nil {
		l.cleanup(pod)
		os.RemoveAll(dir)
		return "", fmt.Errorf("cannot spawn %q: %w", rc.Name, apiRefusal(err, "create", "pods", ns, "start its Pod"))
	}
	up := false
	started := func() {
		if !up {
			up = true
			l.cfg.Task.Trace.DelegationStart(c.PlanID, c.Step.ID, id, rc.Name, rc.Version, 0)
		}
	}
	var end podEnd
	err = l.observe(ctx, pod, func(p *corev1.Pod) bool {
		if p == nil {
			end = podEnd{gone: true}
			return true
		}
		if p.Status.Phase == corev1.PodRunning {
			started()
		}
		end = judgePod(p)
		return end.done
	})
	if err != nil && ctx.Err() != nil {
		return l.cancel(c, pod, dir, up, started)
	}
	// The Pod ended on its own, or watching it failed, before the cancel,
	// if any: the delegation ends with its own outcome (vm.CapsuleExited).
	vm.CapsuleExited(ctx)
	if err != nil {
		l.cleanup(pod)
		return dir, fmt.Errorf("sub-capsule %s (delegation %s): watching its Pod %s: %w", rc.Name, id, pod, err)
	}
	if end.startFailure != "" && !up {
		l.cleanup(pod)
		os.RemoveAll(dir)
		return "", fmt.Errorf("cannot spawn %q: its Pod %s cannot start: %s", rc.Name, pod, end.startFailure+end.fix(rc, ns))
	}
	started()
	outcome, reason := l.collect(bg, pod, dir, end)
	l.cleanup(pod)
	l.cfg.Task.Trace.Delegation(c.PlanID, c.Step.ID, id, outcome, reason)
	if outcome != session.DelegationCompleted {
		return dir, fmt.Errorf("sub-capsule %s (delegation %s) failed: %s", rc.Name, id, reason)
	}
	return dir, nil
}

// cancel ends a delegation's Pod on the plan's cancel: deleted with the
// grace period (SIGTERM, SIGKILL a grace later), and once it is gone its
// results are brought home and completion.json written; the task writes
// the terminal lines at plan_end.
func (l *Launcher) cancel(c vm.Call, pod, dir string, up bool, started func()) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Grace+time.Minute)
	defer cancel()
	grace := l.graceSeconds()
	err := l.cfg.Client.CoreV1().Pods(l.cfg.Namespace).Delete(ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	if err != nil && !apierrors.IsNotFound(err) {
		err = apiRefusal(err, "delete", "pods", l.cfg.Namespace, "end its Pod")
	} else {
		err = l.observe(ctx, pod, func(p *corev1.Pod) bool { return p == nil })
	}
	if up {
		if b, derr := download(ctx, l.cfg.Client, l.cfg.Namespace, pod); derr == nil {
			unpack(b, dir, capsule.ObjectiveFile)
		}
	}
	started()
	l.cleanup(pod)
	werr := session.WriteCompletion(dir, session.LauncherEnded)
	id := l.delegationID(c)
	l.ended.Add(c.PlanID, c.Step.ID, id)
	return dir, errors.Join(errors.New(vm.CapsuleEnded), err, werr)
}

// BeforeTrace is capsule.Launcher.BeforeTrace: before plan_end of a
// cancelled task, task_canceled, the terminal delegation lines and
// task_end (capsule.Ended).
func (l *Launcher) BeforeTrace(e vm.Event) {
	if l != nil {
		l.ended.BeforeTrace(l.cfg.Task, e)
	}
}

// cleanup deletes a delegation's Pod and ConfigMaps, as far as it can: the
// garbage collector removes what is left when the Lease goes.
func (l *Launcher) cleanup(pod string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	core := l.cfg.Client.CoreV1()
	grace := l.graceSeconds()
	core.Pods(l.cfg.Namespace).Delete(ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	core.ConfigMaps(l.cfg.Namespace).Delete(ctx, pod+"-in", metav1.DeleteOptions{})
	head, err := core.ConfigMaps(l.cfg.Namespace).Get(ctx, pod+"-out", metav1.GetOptions{})
	n := 0
	if err == nil {
		n, _ = strconv.Atoi(head.Data[keyChunks])
		core.ConfigMaps(l.cfg.Namespace).Delete(ctx, pod+"-out", metav1.DeleteOptions{})
	}
	for i := 0; i < n || i == 0; i++ {
		if err := core.ConfigMaps(l.cfg.Namespace).Delete(ctx, pod+"-out-"+strconv.Itoa(i), metav1.DeleteOptions{}); err != nil && i >= n {
			break
		}
	}
}

// podSpec is the Pod of one delegation.
func (l *Launcher) podSpec(lease *coordv1.Lease, rc *Found, pod, planID, id string) *corev1.Pod {
	grace := l.graceSeconds()
	ro := int32(0o555)
	env := []corev1.EnvVar{
		{Name: capsule.EnvSpawnedBy, Value: l.cfg.Task.Session.Info.ID},
		{Name: capsule.EnvDelegationID, Value: id},
		{Name: capsule.EnvDelegationDepth, Value: strconv.Itoa(l.cfg.Depth + 1)},
		{Name: capsule.EnvGrace, Value: l.cfg.Grace.String()},
		{Name: EnvNamespace, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: EnvLease, Value: lease.Name},
		{Name: EnvPod, Value: pod},
	}
	return &corev1.Pod{
		ObjectMeta: l.meta(lease, pod, planID, id),
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			TerminationGracePeriodSeconds: &grace,
			ServiceAccountName:            rc.ServiceAccount,
			Containers: []corev1.Container{{
				Name:       "capsule",
				Image:      rc.Image,
				Command:    []string{"planc", PodCommand, "--in", InDir, "--session", SessionDir, "--workdir", WorkDir},
				Env:        env,
				WorkingDir: WorkDir,
				Resources:  rc.Resources,
				VolumeMounts: []corev1.VolumeMount{
					{Name: "in", MountPath: InDir, ReadOnly: true},
					{Name: "session", MountPath: SessionDir},
					{Name: "work", MountPath: WorkDir},
				},
			}},
			Volumes: []corev1.Volume{
				{Name: "in", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: pod + "-in"}, DefaultMode: &ro}}},
				{Name: "session", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
}

// podEnd is what a Pod's status says of its end.
type podEnd struct {
	done bool
	gone bool
	// startFailure says why its container cannot start (the image cannot
	// be pulled, …); reason is the kubelet's reason for it.
	startFailure, reason string
	// phase, exit and message: how it ended.
	phase   corev1.PodPhase
	exit    int32
	message string
}

// fix says what to do about a start failure.
func (e podEnd) fix(rc *Found, ns string) string {
	switch e.reason {
	case "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull":
		return fmt.Sprintf("; push the image, or name one the cluster can pull in the %q key of configmap/%s in namespace %s (an image from a private registry needs an imagePullSecret on the service account %s)", KeyImage, rc.ConfigMap, ns, rc.ServiceAccount)
	}
	return ""
}

// judgePod reads a Pod's status.
func judgePod(p *corev1.Pod) podEnd {
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil {
			switch w.Reason {
			case "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
				return podEnd{done: true, reason: w.Reason, startFailure: fmt.Sprintf("%s: %s", w.Reason, w.Message)}
			}
		}
	}
	switch p.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		e := podEnd{done: true, phase: p.Status.Phase, message: p.Status.Message, reason: p.Status.Reason}
		for _, s := range p.Status.ContainerStatuses {
			if t := s.State.Terminated; t != nil {
				e.exit, e.reason = t.ExitCode, t.Reason
				if t.Message != "" {
					e.message = t.Message
				}
			}
		}
		return e
	}
	return podEnd{}
}

// observe calls fn with the Pod name as it is now and at each change
// (nil once it is gone) until fn returns true; its error is ctx's or the
// cluster's. A watch that misses a change is made up for by a Get every
// Resync.
func (l *Launcher) observe(ctx context.Context, name string, fn func(*corev1.Pod) bool) error {
	pods := l.cfg.Client.CoreV1().Pods(l.cfg.Namespace)
	for {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			if fn(nil) {
				return nil
			}
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return apiRefusal(err, "get", "pods", l.cfg.Namespace, "follow its Pod")
		case fn(p):
			return nil
		}
		rv := ""
		if p != nil {
			rv = p.ResourceVersion
		}
		wctx, cancel := context.WithTimeout(ctx, l.cfg.Resync)
		w, err := pods.Watch(wctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(), ResourceVersion: rv})
		if err != nil {
			cancel()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return apiRefusal(err, "watch", "pods", l.cfg.Namespace, "follow its Pod")
		}
		done := false
		// A watch ends at its context's end; not every client's does by
		// itself.
	events:
		for {
			select {
			case <-wctx.Done():
				break events
			case ev, ok := <-w.ResultChan():
				if !ok {
					break events
				}
				p, ok := ev.Object.(*corev1.Pod)
				if !ok || p.Name != name {
					continue
				}
				if ev.Type == watch.Deleted {
					p = nil
				}
				if fn(p) {
					done = true
					break events
				}
			}
		}
		w.Stop()
		cancel()
		if done {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// childStatus is the child's last status line, as the results hold it.
type childStatus struct {
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// collect brings an ended Pod's results into dir and judges the
// delegation: the child's own word, else how its Pod ended.
func (l *Launcher) collect(ctx context.Context, pod, dir string, end podEnd) (session.DelegationOutcome, string) {
	b, err := download(ctx, l.cfg.Client, l.cfg.Namespace, pod)
	if err == nil {
		err = unpack(b, dir, capsule.ObjectiveFile)
	}
	if err != nil {
		reason := fmt.Sprintf("its Pod %s ended (%s) before it reported an outcome: %v", pod, end.describe(), err)
		if errors.Is(err, errNoResults) {
			reason = fmt.Sprintf("its Pod %s ended (%s) before it sent its results", pod, end.describe())
		}
		if last := l.logTail(ctx, pod); last != "" {
			reason += ": " + last
		}
		return session.DelegationFailed, reason
	}
	var st childStatus
	sb, _ := os.ReadFile(filepath.Join(dir, StatusFile))
	json.Unmarshal(sb, &st)
	switch {
	case st.Outcome == "completed" && end.phase == corev1.PodSucceeded:
		if _, err := os.Stat(filepath.Join(dir, capsule.AnswerFile)); err != nil {
			return session.DelegationFailed, "its answer cannot be read: " + err.Error()
		}
		return session.DelegationCompleted, ""
	case st.Outcome == "failed" || st.Outcome == "canceled":
		reason := st.Reason
		if last := capsule.LastLine(filepath.Join(dir, capsule.StderrFile)); last != "" && !strings.Contains(reason, last) {
			reason += " (stderr: " + last + ")"
		}
		return session.DelegationFailed, reason
	}
	reason := fmt.Sprintf("its Pod %s ended (%s) before it reported an outcome", pod, end.describe())
	if last := capsule.LastLine(filepath.Join(dir, capsule.StderrFile)); last != "" {
		reason += ": " + last
	}
	return session.DelegationFailed, reason
}

// describe says how a Pod ended.
func (e podEnd) describe() string {
	s := string(e.phase)
	if e.phase == "" {
		s = "gone"
	}
	if e.reason != "" {
		s += ", " + e.reason
	}
	if e.exit != 0 {
		s += ", " + procexit.Status{Code: int(e.exit)}.String()
	}
	if e.message != "" {
		s += ": " + e.message
	}
	return s
}

// logTail is the last line of the Pod's log (pods/log), "" when it cannot
// be read.
func (l *Launcher) logTail(ctx context.Context, pod string) string {
	n := int64(5)
	rc, err := l.cfg.Client.CoreV1().Pods(l.cfg.Namespace).GetLogs(pod, &corev1.PodLogOptions{Container: "capsule", TailLines: &n}).Stream(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 4096))
	return capsule.LastOf(string(b))
}
