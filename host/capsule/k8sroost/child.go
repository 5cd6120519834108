package k8sroost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
)

// PodConfig is the inside of a capsule's Pod: `planc __capsule-k8s`.
type PodConfig struct {
	// Client is the cluster (the Pod's service account); Namespace,
	// Lease and Pod name the session's Lease and this Pod
	// ($PLANC_K8S_NAMESPACE, $PLANC_K8S_LEASE, $PLANC_K8S_POD).
	Client                Client
	Namespace, Lease, Pod string
	// InDir holds the input ConfigMap's files: capsule.json, the
	// objective and the capsule's other files.
	InDir string
	// SessionDir is the sub-capsule's session directory; WorkDir where
	// its command or steps run.
	SessionDir, WorkDir string
	// SpawnedBy and DelegationID name its parent session and delegation.
	SpawnedBy, DelegationID string
	// Stderr gets the sub-capsule's standard error too.
	Stderr io.Writer
	// Poll is how often the Lease is read; 0 is a third of its duration.
	Poll time.Duration
}

// ChildRunner runs a sub-capsule: host.RunCapsule, which cmd/planc passes
// in (this package cannot import host).
type ChildRunner func(ctx context.Context, cfg capsule.ChildConfig) session.ExitCode

// RunPod runs the sub-capsule of a capsule's Pod with run, as `planc
// __capsule` runs one beside its parent: the objective and manifest come
// from the input ConfigMap's files, the lifeline is the session's Lease
// (it ends when the Lease is gone or not renewed within its duration),
// and when the run ends its session directory, answer, standard error and
// last status go home as output ConfigMaps — also after a SIGTERM
// (cancelled ctx), within the grace period, and after the parent ended,
// so that a --resume can still read the spawner_ended.
func RunPod(ctx context.Context, pc PodConfig, run ChildRunner) session.ExitCode {
	fail := func(err error) session.ExitCode {
		fmt.Fprintf(pc.Stderr, "planc %s: %v\n", PodCommand, err)
		return session.ExitRefused
	}
	src, err := os.ReadFile(filepath.Join(pc.InDir, KeyManifest))
	if err != nil {
		return fail(err)
	}
	objective, err := os.ReadFile(filepath.Join(pc.InDir, capsule.ObjectiveFile))
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(pc.SessionDir, 0o755); err != nil {
		return fail(err)
	}
	out, err := os.Create(filepath.Join(pc.SessionDir, capsule.AnswerFile))
	if err != nil {
		return fail(err)
	}
	defer out.Close()
	errf, err := os.Create(filepath.Join(pc.SessionDir, capsule.StderrFile))
	if err != nil {
		return fail(err)
	}
	defer errf.Close()
	lease, err := pc.Client.CoordinationV1().Leases(pc.Namespace).Get(ctx, pc.Lease, metav1.GetOptions{})
	if err != nil {
		return fail(apiRefusal(err, "get", "leases", pc.Namespace, "read the session's lease"))
	}
	st := &lastStatus{}
	lifeline, stop := watchLease(ctx, pc, lease.Spec.LeaseDurationSeconds)
	defer stop()
	code := run(ctx, capsule.ChildConfig{
		Manifest: filepath.Join(pc.InDir, KeyManifest), ManifestSrc: bytes.NewReader(src),
		SessionDir: pc.SessionDir, WorkDir: pc.WorkDir,
		SpawnedBy: pc.SpawnedBy, DelegationID: pc.DelegationID,
		Stdin: bytes.NewReader(objective), Stdout: out, Stderr: io.MultiWriter(errf, pc.Stderr),
		Lifeline: lifeline, Status: st,
	})
	out.Close()
	errf.Close()
	if b, err := json.Marshal(st.get()); err == nil {
		os.WriteFile(filepath.Join(pc.SessionDir, StatusFile), b, 0o644)
	}
	// Sent also after a SIGTERM: the kubelet's SIGKILL comes a grace
	// period later, and the parent reads whatever arrived by then.
	b, err := pack(pc.SessionDir)
	if err == nil {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		meta := metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{ownerRef(lease)}, Labels: map[string]string{}}
		if p, perr := pc.Client.CoreV1().Pods(pc.Namespace).Get(uctx, pc.Pod, metav1.GetOptions{}); perr == nil {
			meta.Labels, meta.Annotations = p.Labels, p.Annotations
		}
		err = upload(uctx, pc.Client, pc.Namespace, pc.Pod, meta, b)
	}
	if err != nil {
		fmt.Fprintf(pc.Stderr, "planc %s: sending the results home: %v\n", PodCommand, err)
		if code == session.ExitCompleted {
			code = session.ExitFailed
		}
	}
	return code
}

// lastStatus keeps the outcome of the status lines written to it.
type lastStatus struct {
	mu  sync.Mutex
	buf []byte
	st  childStatus
}

func (s *lastStatus) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	sc := bufio.NewScanner(bytes.NewReader(s.buf))
	for sc.Scan() {
		var st childStatus
		if json.Unmarshal(sc.Bytes(), &st) == nil && st.Outcome != "" {
			s.st = st
		}
	}
	if i := bytes.LastIndexByte(s.buf, '\n'); i >= 0 {
		s.buf = s.buf[i+1:]
	}
	return len(p), nil
}

func (s *lastStatus) get() childStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// watchLease returns the lifeline of a Pod's sub-capsule: a reader that
// blocks while the session's Lease is renewed and ends (EOF) once it is
// gone or its renewTime has not changed for its duration, measured on
// this machine's clock (the parent's clock may differ). stop ends the
// watch.
func watchLease(ctx context.Context, pc PodConfig, secs *int32) (io.Reader, func()) {
	dur := DefaultLeaseDuration
	if secs != nil && *secs > 0 {
		dur = time.Duration(*secs) * time.Second
	}
	poll := pc.Poll
	if poll <= 0 {
		poll = dur / 3
	}
	r, w := io.Pipe()
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	go func() {
		leases := pc.Client.CoordinationV1().Leases(pc.Namespace)
		var seen string
		seenAt := time.Now()
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				w.Close()
				return
			case <-t.C:
			}
			gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), poll)
			l, err := leases.Get(gctx, pc.Lease, metav1.GetOptions{})
			cancel()
			switch {
			case apierrors.IsNotFound(err):
				w.Close() // the parent ended its session
				return
			case err == nil && l.Spec.RenewTime != nil:
				if v := l.Spec.RenewTime.UTC().Format(time.RFC3339Nano); v != seen {
					seen, seenAt = v, time.Now()
				}
			}
			if time.Since(seenAt) > dur {
				w.Close()
				return
			}
		}
	}()
	return r, stop
}
