// Package toolschema holds the input schemas of the runtime's built-in
// tools, written once as JSON Schema (draft 2020-12) files embedded here,
// one per tool (<tool>.json). Three places read them: check's tool-input
// rule, which holds a tool step's input to its tool's schema before
// anything runs; the built-in tools themselves, which hold the input they
// are called with to the same schema; and docs/manifest.md's table of
// built-in tools, which a golden test renders from them. It imports
// nothing of planc's, so every stage may use it.
package toolschema

import (
	"embed"
	"encoding/json"
	"maps"
	"strings"
	"sync"
)

//go:embed *.json
var files embed.FS

// loaded reads the embedded files once.
var loaded = sync.OnceValue(func() map[string]json.RawMessage {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic("toolschema: " + err.Error()) // the files are fixed at build time
	}
	out := make(map[string]json.RawMessage, len(entries))
	for _, e := range entries {
		b, err := files.ReadFile(e.Name())
		if err != nil {
			panic("toolschema: " + err.Error())
		}
		out[strings.TrimSuffix(e.Name(), ".json")] = b
	}
	return out
})

// Builtin returns the built-in tools' input schemas by tool name, as JSON
// text. The map is fresh; the texts are shared and must not be changed.
func Builtin() map[string]json.RawMessage { return maps.Clone(loaded()) }
