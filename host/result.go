package host

import (
	"errors"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/vm"
)

// Result is what Run did.
type Result struct {
	// Report is the plan's report.
	Report vm.Report
	// Status is the exit status: ExitCompleted, ExitFailed or
	// ExitCanceled.
	Status session.ExitCode
	// Session is the session directory the plan ran in.
	Session *session.Session
	// Plan is the plan file it ran from.
	Plan *session.PlanFile
	// Redrive is K when the run was the K-th redrive of its plan, 0 for a
	// first run.
	Redrive int
}

// RefusedError is a plan refused before any step ran (exit status 2).
type RefusedError struct {
	// Code is CodeNoScope for E-RUN-012, "" otherwise.
	Code string
	// Diagnostics are the findings when the plan itself was refused (once
	// the tools of the manifest's MCP servers were known); Source is the
	// text they point into.
	Diagnostics []ast.Diagnostic
	Source      []byte
	// Msg says why, when there are no diagnostics.
	Msg string
}

// Error returns the refusal's message.
func (e *RefusedError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	for _, d := range e.Diagnostics {
		if d.Severity == ast.Error {
			return "the plan is refused: " + d.Message
		}
	}
	return "the plan is refused"
}

// ExitStatus returns `planc run`'s exit status for Run's outcome.
func ExitStatus(res *Result, err error) session.ExitCode {
	var re *RefusedError
	if errors.As(err, &re) || res == nil {
		return session.ExitRefused // nothing ran
	}
	return res.Status
}
