package sandbox

import "os"

// init runs the shim when this executable was started as `… __shim …`
// (the runner's spawners, per-step shims and guardians: Scope.Shim is
// planc itself by default), before any package that imports this one is
// initialised: the shim needs none of what planc's own start-up does
// (its command table, schema compilation, the Kubernetes client's
// registrations), which would otherwise be paid by every spawner and
// guardian a plan starts. Packages initialise in import-path order once
// their imports have, so what this one does not import and sorts after
// it is skipped too.
func init() {
	if len(os.Args) > 1 && os.Args[1] == ShimCommand {
		os.Exit(ShimMain(os.Args[2:]))
	}
}
