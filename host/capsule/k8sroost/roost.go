package k8sroost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capsule"
)

// Prefix starts a --roost value that names a namespace of a cluster:
// k8s:NAMESPACE.
const Prefix = "k8s:"

// The labels and keys of a roost ConfigMap (docs/kubernetes.md).
const (
	// LabelNamespace and LabelName hold the two halves of the capsule's
	// name: local/worker is planc.dev/capsule-namespace=local,
	// planc.dev/capsule-name=worker (a label value holds no "/").
	LabelNamespace = "planc.dev/capsule-namespace"
	LabelName      = "planc.dev/capsule-name"
	// KeyManifest is the capsule's manifest, as capsule.json of the local
	// roost.
	KeyManifest = capsule.ManifestFile
	// KeyImage is the container image, with planc on its PATH.
	KeyImage = "image"
	// KeyResources is the container's resources as JSON:
	// {"requests": {"cpu": "250m"}, "limits": {"memory": "512Mi"}}.
	KeyResources = "resources"
	// KeyServiceAccount is the Pod's service account; DefaultServiceAccount
	// when absent.
	KeyServiceAccount = "serviceAccountName"
)

// DefaultServiceAccount is the service account of a capsule's Pod when its
// ConfigMap names none: the one docs/kubernetes.md creates.
const DefaultServiceAccount = "planc"

// RoleName is the Role docs/kubernetes.md grants planc; refusals name it.
const RoleName = "planc-roost"

// ParseSpec returns the namespace of a --roost value k8s:NAMESPACE; ok is
// false for any other value (a directory). A bad namespace is an error
// that says what a namespace name is.
func ParseSpec(s string) (namespace string, ok bool, err error) {
	ns, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return "", false, nil
	}
	if ns == "" {
		return "", true, fmt.Errorf("--roost %s names no namespace; write --roost k8s:NAMESPACE, e.g. --roost k8s:planc", s)
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return "", true, fmt.Errorf("--roost %s: %q is not a Kubernetes namespace name: %s", s, ns, strings.Join(errs, "; "))
	}
	return ns, true, nil
}

// Connect returns a client of the cluster found the usual way: $KUBECONFIG,
// else ~/.kube/config, else the Pod's service-account credentials when
// planc runs in a cluster (client-go's clientcmd loading rules). It asks
// the cluster's version, so that an unreachable cluster is a refusal now,
// with what to fix, and not a failure of every capsule step.
func Connect(ctx context.Context) (Client, *rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("no Kubernetes cluster to run sub-capsules on: %v; set KUBECONFIG to a kubeconfig file, write ~/.kube/config, or run planc in a Pod with a service account", err)
	}
	cfg.Timeout = 0
	cs, err := newClients(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("the kubeconfig's cluster %s: %w", cfg.Host, err)
	}
	if err := Ping(ctx, cs.serverVersion, cfg.Host); err != nil {
		return nil, nil, err
	}
	return cs, cfg, nil
}

// Ping asks the cluster at host its version with ask: an error says it
// cannot be reached and what to check.
func Ping(ctx context.Context, ask func(context.Context) error, host string) error {
	done := make(chan error, 1)
	go func() {
		done <- ask(ctx)
	}()
	t := time.NewTimer(15 * time.Second)
	defer t.Stop()
	var err error
	select {
	case err = <-done:
	case <-t.C:
		err = errors.New("no answer in 15s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("no Kubernetes cluster reachable at %s: %v; check that the cluster runs and that KUBECONFIG (or ~/.kube/config) names it and its credentials", host, err)
	}
	return nil
}

// Found is a capsule the cluster's roost holds.
type Found struct {
	capsule.Found
	// ConfigMap is the roost ConfigMap's name.
	ConfigMap string
	// Image is the container image; Resources the container's resources;
	// ServiceAccount the Pod's service account.
	Image          string
	Resources      corev1.ResourceRequirements
	ServiceAccount string
	// Files are the ConfigMap's data as read at spawn, capsule.json among
	// them: the files the Pod finds beside its manifest.
	Files map[string]string
}

// Resolve finds the capsule a step names by its bare name in the
// namespace's roost ConfigMaps, spawned by the capsule from whose
// capabilities.spawn.allow is allow, as capsule.Roost.Resolve does in a
// directory: the refusals are the same, and a capsule not in the roost
// names the labels its ConfigMap needs.
func Resolve(ctx context.Context, cs Client, ns, bare, from string, allow []string) (*Found, error) {
	name, err := capsule.Referee(bare, from, allow)
	if err != nil {
		return nil, err
	}
	cns, cname, _ := strings.Cut(name, "/")
	sel := labels.Set{LabelNamespace: cns, LabelName: cname}
	if errs := validation.IsValidLabelValue(cns); len(errs) > 0 {
		return nil, fmt.Errorf("the roost refuses to spawn %q: %q cannot be a label value (%s), so no ConfigMap of the roost k8s:%s can hold it", name, cns, strings.Join(errs, "; "), ns)
	}
	if errs := validation.IsValidLabelValue(cname); len(errs) > 0 {
		return nil, fmt.Errorf("the roost refuses to spawn %q: %q cannot be a label value (%s), so no ConfigMap of the roost k8s:%s can hold it", name, cname, strings.Join(errs, "; "), ns)
	}
	list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, apiRefusal(err, "list", "configmaps", ns, fmt.Sprintf("find capsule %q in the roost", name))
	}
	switch len(list.Items) {
	case 0:
		return nil, fmt.Errorf("capsule %q is not in the roost k8s:%s: no ConfigMap in namespace %s has the labels %s; create one with its capsule.json and image as docs/kubernetes.md shows", name, ns, ns, sel.String())
	case 1:
	default:
		var names []string
		for _, cm := range list.Items {
			names = append(names, cm.Name)
		}
		return nil, fmt.Errorf("the roost refuses to spawn %q: ConfigMaps %s in namespace %s all have the labels %s; keep one", name, ast.QuoteList(names, "and"), ns, sel.String())
	}
	cm := list.Items[0]
	where := fmt.Sprintf("configmap/%s in namespace %s", cm.Name, ns)
	src, ok := cm.Data[KeyManifest]
	if !ok {
		return nil, fmt.Errorf("the roost refuses to spawn %q: %s has no %q key; put the capsule's manifest there", name, where, KeyManifest)
	}
	m, err := capsule.LoadManifest(where+" "+KeyManifest, []byte(src))
	if err != nil {
		return nil, err
	}
	if m.Name != name {
		return nil, fmt.Errorf("%s holds capsule %q, not %q: its labels and the manifest's name must agree", where, m.Name, name)
	}
	if m.Entrypoint == nil {
		return nil, fmt.Errorf("the roost refuses to spawn %q: the manifest of %s has no entrypoint; add \"entrypoint\": {\"command\": [...]} or {\"plan\": \"<file>\"}", name, where)
	}
	image := strings.TrimSpace(cm.Data[KeyImage])
	if image == "" {
		return nil, fmt.Errorf("the roost refuses to spawn %q: %s has no %q key; name an image with planc in it (docs/kubernetes.md, \"The capsule image\")", name, where, KeyImage)
	}
	f := &Found{
		Found:     capsule.Found{Name: name, Version: m.Version, Path: "/planc/in/" + KeyManifest, Dir: "/planc/in", Manifest: m, Src: []byte(src)},
		ConfigMap: cm.Name, Image: image, ServiceAccount: DefaultServiceAccount, Files: map[string]string{},
	}
	if sa := strings.TrimSpace(cm.Data[KeyServiceAccount]); sa != "" {
		f.ServiceAccount = sa
	}
	if r, ok := cm.Data[KeyResources]; ok {
		dec := json.NewDecoder(strings.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f.Resources); err != nil {
			return nil, fmt.Errorf("the roost refuses to spawn %q: the %q of %s is not a container's resources: %v; write e.g. {\"requests\": {\"cpu\": \"250m\"}, \"limits\": {\"memory\": \"512Mi\"}}", name, KeyResources, where, err)
		}
	}
	for k, v := range cm.Data {
		switch k {
		case KeyImage, KeyResources, KeyServiceAccount:
		default:
			f.Files[k] = v
		}
	}
	return f, nil
}

// apiRefusal words an API error of verb on resource in ns, done to what:
// a forbidden one names the verb, the resource and the Role that grants
// it.
func apiRefusal(err error, verb, resource, ns, what string) error {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("cannot %s: the cluster's RBAC forbids planc to %s %s in namespace %s (%v); bind planc's user or service account to the Role %q of docs/kubernetes.md, which grants it",
			what, verb, resource, ns, apiMessage(err), RoleName)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("cannot %s: the cluster does not accept planc's credentials (%v); renew the kubeconfig's credentials", what, apiMessage(err))
	}
	return fmt.Errorf("cannot %s: %s %s in namespace %s: %w", what, verb, resource, ns, err)
}

// apiMessage is an API error's message.
func apiMessage(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Message != "" {
		return se.Status().Message
	}
	return err.Error()
}
