package k8sroost

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// TestRESTClient: Connect's clients, built on client-go's rest alone,
// make the requests the typed clients make — method, path, query and
// body — and decode the answers, watch events and API errors among
// them.
func TestRESTClient(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "GET /version":
			fmt.Fprint(w, `{"major": "1", "minor": "37", "gitVersion": "v1.37.2"}`)
		case "GET /api/v1/namespaces/agents/configmaps":
			fmt.Fprint(w, `{"kind": "ConfigMapList", "apiVersion": "v1", "items": [{"metadata": {"name": "worker"}, "data": {"image": "x"}}]}`)
		case "GET /api/v1/namespaces/agents/configmaps/secret":
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "configmaps \"secret\" is forbidden", "reason": "Forbidden", "code": 403}`)
		case "POST /api/v1/namespaces/agents/pods":
			var p corev1.Pod
			if err := json.Unmarshal(body, &p); err != nil || p.Name != "p1" {
				t.Errorf("POST pods: body %s (%v)", body, err)
			}
			p.UID = "u1"
			json.NewEncoder(w).Encode(&p)
		case "DELETE /api/v1/namespaces/agents/pods/p1":
			var o metav1.DeleteOptions
			if err := json.Unmarshal(body, &o); err != nil || o.GracePeriodSeconds == nil || *o.GracePeriodSeconds != 3 {
				t.Errorf("DELETE pod: body %s (%v)", body, err)
			}
			fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Success"}`)
		case "PUT /apis/coordination.k8s.io/v1/namespaces/agents/leases/l1":
			var l coordv1.Lease
			if err := json.Unmarshal(body, &l); err != nil || l.Name != "l1" || l.Spec.HolderIdentity == nil {
				t.Errorf("PUT lease: body %s (%v)", body, err)
			}
			w.Write(body)
		case "GET /api/v1/namespaces/agents/pods":
			if r.URL.Query().Get("watch") != "true" {
				t.Errorf("pods listed, not watched: %s", r.URL.RawQuery)
			}
			fmt.Fprint(w, `{"type": "MODIFIED", "object": {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p1", "resourceVersion": "7"}, "status": {"phase": "Running"}}}`+"\n")
		case "GET /api/v1/namespaces/agents/pods/p1/log":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "last words\n")
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}`)
		}
	}))
	defer srv.Close()
	cs, err := newClients(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := Ping(ctx, cs.serverVersion, srv.URL); err != nil {
		t.Fatal(err)
	}
	list, err := cs.CoreV1().ConfigMaps("agents").List(ctx, metav1.ListOptions{LabelSelector: LabelName + "=worker"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "worker" || list.Items[0].Data["image"] != "x" {
		t.Errorf("list: %+v %v", list, err)
	}
	if _, err := cs.CoreV1().ConfigMaps("agents").Get(ctx, "secret", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a 403 is %v; want forbidden", err)
	}
	if _, err := cs.CoreV1().ConfigMaps("agents").Get(ctx, "ghost", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a 404 is %v; want not found", err)
	}
	p, err := cs.CoreV1().Pods("agents").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1"}}, metav1.CreateOptions{})
	if err != nil || p.UID != "u1" {
		t.Errorf("create: %+v %v", p, err)
	}
	grace := int64(3)
	if err := cs.CoreV1().Pods("agents").Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Errorf("delete: %v", err)
	}
	holder := "me"
	l, err := cs.CoordinationV1().Leases("agents").Update(ctx, &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l1"}, Spec: coordv1.LeaseSpec{HolderIdentity: &holder}}, metav1.UpdateOptions{})
	if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != "me" {
		t.Errorf("update: %+v %v", l, err)
	}
	w, err := cs.CoreV1().Pods("agents").Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "p1").String(), ResourceVersion: "6"})
	if err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if wp, ok := ev.Object.(*corev1.Pod); ev.Type != watch.Modified || !ok || wp.Name != "p1" || wp.Status.Phase != corev1.PodRunning {
		t.Errorf("watch event %v %#v", ev.Type, ev.Object)
	}
	n := int64(5)
	rc, err := cs.CoreV1().Pods("agents").GetLogs("p1", &corev1.PodLogOptions{Container: "capsule", TailLines: &n}).Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := io.ReadAll(rc)
	rc.Close()
	if string(logs) != "last words\n" {
		t.Errorf("logs %q", logs)
	}
	want := []string{
		"GET /version?",
		"GET /api/v1/namespaces/agents/configmaps?labelSelector=planc.dev%2Fcapsule-name%3Dworker",
		"GET /api/v1/namespaces/agents/configmaps/secret?",
		"GET /api/v1/namespaces/agents/configmaps/ghost?",
		"POST /api/v1/namespaces/agents/pods?",
		"DELETE /api/v1/namespaces/agents/pods/p1?",
		"PUT /apis/coordination.k8s.io/v1/namespaces/agents/leases/l1?",
		"GET /api/v1/namespaces/agents/pods?fieldSelector=metadata.name%3Dp1&resourceVersion=6&watch=true",
		"GET /api/v1/namespaces/agents/pods/p1/log?container=capsule&tailLines=5",
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
