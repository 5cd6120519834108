package tools

import (
	"encoding/json"
	"sync"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
)

// schemaInputs holds a built-in tool's input to its schema as capenv.Env
// does in a run (host/tools may not import capenv, which imports it): each
// schema compiled once, so that BenchmarkReadFile measures a call, not a
// schema compilation a run does not make.
type schemaInputs struct{}

var compiledSchemas sync.Map // tool name → *check.InputSchema

func (schemaInputs) CheckInput(tool string, input json.RawMessage) error {
	if s, ok := compiledSchemas.Load(tool); ok {
		return s.(*check.InputSchema).Validate(input)
	}
	s, err := check.CompileInputSchema(toolschema.Builtin()[tool])
	if err != nil {
		return err
	}
	compiledSchemas.Store(tool, s)
	return s.Validate(input)
}
