package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
)

// RunCapsule is `planc __capsule`: it runs a sub-capsule (capsule.RunChild)
// and returns planc's exit status for it. A plan entrypoint runs with Run,
// under the capsule's own manifest.
func RunCapsule(ctx context.Context, cfg capsule.ChildConfig) session.ExitCode {
	return capsule.RunChild(ctx, cfg, runEntrypoint)
}

// runEntrypoint runs a sub-capsule's plan entrypoint with Run.
func runEntrypoint(ctx context.Context, e capsule.PlanEntry) (capsule.PlanResult, error) {
	res, err := Run(ctx, Config{
		Plan: e.Plan, Env: e.Env, WorkDir: e.WorkDir,
		SessionDir: e.SessionDir, Roost: e.Roost,
		SpawnedBy: e.SpawnedBy, DelegationID: e.DelegationID, ParentEnded: e.ParentEnded,
		AtPlanStart: e.AtPlanStart,
		Notice:      func(s string) { fmt.Fprintf(e.Stderr, "planc %s: %s\n", capsule.Command, s) },
	})
	if res == nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return capsule.PlanResult{Refused: re.Diagnostics}, err
		}
		return capsule.PlanResult{}, err
	}
	return capsule.PlanResult{Report: &res.Report, Code: res.Status}, err
}
