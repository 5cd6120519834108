package k8sroost

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Client is what of a cluster's API the roost uses: Pods, ConfigMaps and
// Pod logs (core/v1) and Leases (coordination/v1), with the methods of
// client-go's typed clients of the same names, so that a
// kubernetes.Interface (its fake among them) serves through a thin
// adapter (the tests' typed). Connect's Client is built on rest alone:
// client-go's typed clients import its kubernetes/scheme, whose init
// registers every API group, and with discovery and the apply
// configurations they link gnostic's OpenAPI models and
// structured-merge-diff. Their package inits cost every planc process
// (not its shims, which start before them) ~4.5 ms of its start.
type Client interface {
	CoreV1() CoreV1
	CoordinationV1() CoordinationV1
}

// CoreV1 is the roost's part of the core/v1 API group.
type CoreV1 interface {
	Pods(namespace string) Pods
	ConfigMaps(namespace string) ConfigMaps
}

// CoordinationV1 is the roost's part of the coordination.k8s.io/v1 API
// group.
type CoordinationV1 interface {
	Leases(namespace string) Leases
}

// Pods are the Pods of a namespace.
type Pods interface {
	Create(ctx context.Context, pod *corev1.Pod, opts metav1.CreateOptions) (*corev1.Pod, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Pod, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	GetLogs(name string, opts *corev1.PodLogOptions) *rest.Request
}

// ConfigMaps are the ConfigMaps of a namespace.
type ConfigMaps interface {
	Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error)
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Leases are the Leases of a namespace.
type Leases interface {
	Create(ctx context.Context, lease *coordv1.Lease, opts metav1.CreateOptions) (*coordv1.Lease, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordv1.Lease, error)
	Update(ctx context.Context, lease *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// codecs are the scheme of the two API groups and its codecs, made at the
// first Connect, not at init: planc processes that never talk to a
// cluster do not pay for them.
var codecs = sync.OnceValue(func() *apiScheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	if err := corev1.AddToScheme(s); err != nil {
		panic(err) // registering generated types fails only on a programming error
	}
	if err := coordv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return &apiScheme{s, serializer.NewCodecFactory(s), runtime.NewParameterCodec(s)}
})

// apiScheme is a scheme with its codecs.
type apiScheme struct {
	scheme *runtime.Scheme
	codecs serializer.CodecFactory
	params runtime.ParameterCodec
}

// clients is Connect's Client: a REST client per API group, sharing one
// HTTP client.
type clients struct {
	core, coord rest.Interface
	params      runtime.ParameterCodec
}

func (c *clients) CoreV1() CoreV1                 { return coreClient{c} }
func (c *clients) CoordinationV1() CoordinationV1 { return coordClient{c} }

type coreClient struct{ c *clients }

func (c coreClient) Pods(ns string) Pods {
	return &pods{apiResource[*corev1.Pod]{c.c.core, c.c.params, ns, "pods", func() *corev1.Pod { return &corev1.Pod{} }}}
}

func (c coreClient) ConfigMaps(ns string) ConfigMaps {
	return &configMaps{apiResource[*corev1.ConfigMap]{c.c.core, c.c.params, ns, "configmaps", func() *corev1.ConfigMap { return &corev1.ConfigMap{} }}}
}

type coordClient struct{ c *clients }

func (c coordClient) Leases(ns string) Leases {
	return &apiResource[*coordv1.Lease]{c.c.coord, c.c.params, ns, "leases", func() *coordv1.Lease { return &coordv1.Lease{} }}
}

// object is an API object the roost reads and writes.
type object interface {
	runtime.Object
	GetName() string
}

// apiResource is the requests of one resource in one namespace, as
// client-go's typed clients make them.
type apiResource[T object] struct {
	rc       rest.Interface
	params   runtime.ParameterCodec
	ns, name string
	newT     func() T
}

func (r *apiResource[T]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	out := r.newT()
	err := r.rc.Post().Namespace(r.ns).Resource(r.name).VersionedParams(&opts, r.params).Body(obj).Do(ctx).Into(out)
	return out, err
}

func (r *apiResource[T]) Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error) {
	out := r.newT()
	err := r.rc.Get().Namespace(r.ns).Resource(r.name).Name(name).VersionedParams(&opts, r.params).Do(ctx).Into(out)
	return out, err
}

func (r *apiResource[T]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	out := r.newT()
	err := r.rc.Put().Namespace(r.ns).Resource(r.name).Name(obj.GetName()).VersionedParams(&opts, r.params).Body(obj).Do(ctx).Into(out)
	return out, err
}

func (r *apiResource[T]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.rc.Delete().Namespace(r.ns).Resource(r.name).Name(name).Body(&opts).Do(ctx).Error()
}

func (r *apiResource[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return r.rc.Get().Namespace(r.ns).Resource(r.name).VersionedParams(&opts, r.params).Watch(ctx)
}

type pods struct{ apiResource[*corev1.Pod] }

func (p *pods) GetLogs(name string, opts *corev1.PodLogOptions) *rest.Request {
	return p.rc.Get().Namespace(p.ns).Name(name).Resource("pods").SubResource("log").VersionedParams(opts, p.params)
}

type configMaps struct{ apiResource[*corev1.ConfigMap] }

func (c *configMaps) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	out := &corev1.ConfigMapList{}
	err := c.rc.Get().Namespace(c.ns).Resource(c.name).VersionedParams(&opts, c.params).Do(ctx).Into(out)
	return out, err
}

// newClients makes the REST clients of cfg's cluster, as client-go's
// typed clients' NewForConfigAndClient would.
func newClients(cfg *rest.Config) (*clients, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	sc := codecs()
	group := func(gv schema.GroupVersion, apiPath string) (rest.Interface, error) {
		c := *cfg
		c.GroupVersion = &gv
		c.APIPath = apiPath
		c.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(sc.scheme, sc.codecs).WithoutConversion()
		if c.UserAgent == "" {
			c.UserAgent = rest.DefaultKubernetesUserAgent()
		}
		return rest.RESTClientForConfigAndClient(&c, hc)
	}
	c := &clients{params: sc.params}
	if c.core, err = group(corev1.SchemeGroupVersion, "/api"); err != nil {
		return nil, err
	}
	if c.coord, err = group(coordv1.SchemeGroupVersion, "/apis"); err != nil {
		return nil, err
	}
	return c, nil
}

// serverVersion asks the cluster of c its version (GET /version), as
// client-go's discovery client does.
func (c *clients) serverVersion(ctx context.Context) error {
	body, err := c.core.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return err
	}
	var info struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return fmt.Errorf("unable to parse the server version: %v", err)
	}
	return nil
}
