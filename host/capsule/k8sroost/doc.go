// Package k8sroost is a roost on a Kubernetes cluster: `planc run --roost
// k8s:NAMESPACE` runs each capsule step as one Pod in NAMESPACE instead of
// a child planc beside the parent (docs/kubernetes.md). The cluster's own
// objects carry placement, lifeline, cancel and garbage collection; the
// capsule semantics of docs/capsules.md are unchanged.
//
//   - The roost is the namespace's ConfigMaps labelled
//     planc.dev/capsule-namespace and planc.dev/capsule-name: each holds
//     the capsule's capsule.json (the manifest of the local roost, whose
//     capabilities.spawn.allow is still refereed), the image with planc in
//     it, optional resources and service account, and any other file its
//     entrypoint needs (Resolve).
//   - Each attempt of a capsule step is one Pod, not a Job: planc does the
//     retries itself (a Job with backoffLimit 0 would add a controller
//     that must run, an object between planc and its Pod, and a second
//     name to find the Pod's errors by, for nothing planc needs), and a
//     Pod's creation fails at once with the reason (RBAC, quota,
//     admission) where a Job's fails later in an event. The Pod is
//     labelled with the session, plan and delegation id and runs `planc
//     __capsule-k8s` (RunPod) in the capsule's image.
//   - Lifeline: one coordination.k8s.io Lease per session, renewed by the
//     parent; every object the backend makes has an ownerReference to it,
//     so deleting it (the parent's normal exit) lets the garbage collector
//     remove what is left. The child polls it and, once it is not renewed
//     within its duration, ends as a child of a dead parent does:
//     spawner_ended, no completion.json.
//   - Cancel: delete the Pod with gracePeriodSeconds 5 — the kubelet's
//     SIGTERM, then SIGKILL 5 s later; the launcher then writes
//     completion.json and the task the terminal lines, as locally.
//   - Results come home through ConfigMaps, one input ConfigMap per
//     delegation (the objective and the capsule's files as read at
//     spawn) and chunked output ConfigMaps (a gzipped tar of the child's
//     session directory, answer and standard error, with its SHA-256).
//     The Pod's log stream is not used for them: the kubelet rotates a
//     container's log at 10 MiB by default and its format is line-based,
//     so a 10 MiB answer could be cut; API objects are kept until read.
package k8sroost
