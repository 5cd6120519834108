package cliflag

// go test ./... -update hands -update to every test binary; this package
// has no golden file, and registers the flag only so that the command does
// not fail here (package update).
import _ "github.com/planc/planc/internal/testkit/update"
