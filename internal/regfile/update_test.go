package regfile

// The -update flag of go test ./... -update (no golden file here).
import _ "github.com/planc/planc/internal/testkit/update"
