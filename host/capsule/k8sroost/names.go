package k8sroost

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The labels and annotations of the objects a parent makes for its
// delegations: the label values are the ids made label-safe, the
// annotations the ids exactly.
const (
	LabelSession    = "planc.dev/session"
	LabelPlan       = "planc.dev/plan"
	LabelDelegation = "planc.dev/delegation"
	// LabelRole says what an object is to planc: "lease", "input",
	// "output".
	LabelRole = "planc.dev/role"
	// AnnotationSession and AnnotationDelegation hold the exact ids.
	AnnotationSession    = "planc.dev/session-id"
	AnnotationDelegation = "planc.dev/delegation-id"
)

// hash8 is 8 hex digits of the SHA-256 of parts, joined by NULs.
func hash8(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:4])
}

// dnsPart is s lowercased with every run of characters a DNS label does
// not allow made one "-", trimmed of "-" and cut to n bytes.
func dnsPart(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > n {
		out = strings.TrimRight(out[:n], "-")
	}
	return out
}

// LeaseName is the name of a session's Lease: planc-<session>-<hash>,
// a DNS label whatever the session id holds.
func LeaseName(sessionID string) string {
	return "planc-" + join(dnsPart(sessionID, 40), hash8(sessionID))
}

// PodName is the name of the Pod of one delegation of a session:
// planc-<delegation>-<hash of both>, at most 63 bytes. Its input
// ConfigMap is PodName-in, its output ConfigMaps PodName-out and
// PodName-out-<i>.
func PodName(sessionID, delegationID string) string {
	return "planc-" + join(dnsPart(delegationID, 40), hash8(sessionID, delegationID))
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "-" + b
}

// labelValue is s as a label value: s itself when it is one, else its
// allowed characters with the others made "_", cut, and a hash.
func labelValue(s string) string {
	if len(validation.IsValidLabelValue(s)) == 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	v := strings.Trim(b.String(), "-_.")
	if len(v) > 50 {
		v = v[:50]
	}
	return strings.Trim(v, "-_.") + "-" + hash8(s)
}
