package k8sroost

import (
	"k8s.io/client-go/kubernetes"
)

// typed is a client-go clientset (its fake, or a real one of the tests'
// control plane) as the roost's Client: the methods the roost calls have
// the same signatures in both.
func typed(cs kubernetes.Interface) Client { return typedClient{cs} }

type typedClient struct{ cs kubernetes.Interface }

func (c typedClient) CoreV1() CoreV1                 { return typedCore{c.cs} }
func (c typedClient) CoordinationV1() CoordinationV1 { return typedCoord{c.cs} }

type typedCore struct{ cs kubernetes.Interface }

func (c typedCore) Pods(ns string) Pods             { return c.cs.CoreV1().Pods(ns) }
func (c typedCore) ConfigMaps(ns string) ConfigMaps { return c.cs.CoreV1().ConfigMaps(ns) }

type typedCoord struct{ cs kubernetes.Interface }

func (c typedCoord) Leases(ns string) Leases { return c.cs.CoordinationV1().Leases(ns) }
