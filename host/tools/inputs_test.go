package tools

import (
	"encoding/json"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
)

// schemaInputs holds a built-in tool's input to its schema as capenv.Env
// does in a run (host/tools may not import capenv, which imports it).
type schemaInputs struct{}

func (schemaInputs) CheckInput(tool string, input json.RawMessage) error {
	s, err := check.CompileInputSchema(toolschema.Builtin()[tool])
	if err != nil {
		return err
	}
	return s.Validate(input)
}
