package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/planc/planc/internal/composetext"
)

// compose returns the template with each placeholder replaced by its
// value (host/toolschema/compose.json). The schema has already held the
// input to strings and nulls; a null value reads as empty text (S8).
func (b *Builtins) compose(_ context.Context, in map[string]json.RawMessage) (string, error) {
	template, err := str(in, "template", false)
	if err != nil {
		return "", err
	}
	var raw map[string]*string
	if err := json.Unmarshal(in["values"], &raw); err != nil {
		return "", fmt.Errorf(`"values" must be an object of strings, not %s`, jsonKind(in["values"]))
	}
	values := make(map[string]string, len(raw))
	for k, v := range raw {
		values[k] = ""
		if v != nil {
			values[k] = *v
		}
	}
	parts, err := composetext.Parse(template)
	if err != nil {
		return "", err
	}
	return composetext.Fill(parts, values)
}
