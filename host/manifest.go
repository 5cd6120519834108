package host

import (
	"fmt"

	"github.com/planc/planc/ast"
)

// Admit refuses a manifest that does not grant capabilities.plan.submit: a
// capsule without the grant has no submit-plan tool, so `planc run` and
// `planc serve` have nothing to run a submitted plan with. They admit the
// manifest once, before they check a plan; Run does not admit again (a
// sub-capsule's entrypoint plan, its own, needs no grant). AdmitFrom names
// the manifest's path in the refusal.
func Admit(m *ast.Manifest) error { return AdmitFrom(m, "") }

// AdmitFrom is Admit for the manifest read from path, which the refusal's
// fix names ("" names none).
func AdmitFrom(m *ast.Manifest, path string) error {
	if m.Capabilities.PlanSubmit {
		return nil
	}
	of := ""
	if path != "" {
		of = " in " + path
	}
	return &RefusedError{Msg: fmt.Sprintf("capsule %q%s is not granted capabilities.plan.submit, so it cannot submit a plan; add \"plan\": {\"submit\": true} to its \"capabilities\"", m.Name, of)}
}
