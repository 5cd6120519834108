package host

import (
	_ "embed"
	"fmt"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// defaultManifestJSON is the manifest `planc run` uses without --capsule:
// the five built-in tools, no shell binaries, nothing to spawn, and the
// plan.submit grant (docs/manifest.md).
//
//go:embed default-capsule.json
var defaultManifestJSON []byte

// DefaultManifestName is the embedded default manifest's capsule name.
const DefaultManifestName = "local/planc"

// DefaultManifest returns the embedded default manifest, freshly parsed:
// the caller may keep or change it.
func DefaultManifest() *ast.Manifest {
	m, ds := parser.ParseManifest(defaultManifestJSON, parser.DefaultLimits())
	if m == nil || ast.HasErrors(ds) {
		panic(fmt.Sprintf("host: the embedded default manifest is refused: %v", ds))
	}
	return m
}

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
