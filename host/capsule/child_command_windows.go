package capsule

import (
	"context"
	"errors"

	"github.com/planc/planc/host/session"
)

// command refuses on Windows: a command entrypoint runs in a process group
// that planc ends with it, which Windows does not have. A capsule step
// never gets this far there (it needs a scope, E-RUN-012); a `planc
// __capsule` started by hand does.
func (r *child) command(_ context.Context, _ []byte) session.ExitCode {
	return r.fail(session.ExitRefused, errors.New("a command entrypoint needs Linux or macOS: windows has no process groups for planc to end it with"))
}
