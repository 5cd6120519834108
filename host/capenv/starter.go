package capenv

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
)

// WriteStarter creates path (and its directory) with src, refusing to
// replace a file that exists: the error is then fs.ErrExist.
func WriteStarter(path string, src []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// Starter is the manifest planc init writes, for a project in a
// directory called dir: the embedded default's grants, with every section
// explained.
func Starter(dir string) []byte {
	return []byte(strings.Replace(starterTemplate, "NAME", namePart(dir), 1))
}

// namePart makes dir a valid name part (ast.IsCapsuleNamePart):
// characters outside letters, digits, "_", "-" and "." become "-", and a
// leading "." or "-" is dropped; "project" when nothing is left.
func namePart(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.TrimLeft(b.String(), ".-")
	if !ast.IsCapsuleNamePart(name) {
		return "project"
	}
	return name
}

// starterTemplate is the starting manifest; NAME is the project's name.
// Its grants are the embedded default capsule's (a test holds them
// equal), so that planc init changes nothing until it is edited.
const starterTemplate = `{
  "$comment": "The capsule planc check, dump-ir, graph, run and serve use in this directory and every directory below it that has no .planc/capsule.json of its own, unless --capsule names another (planc version says which is used). docs/manifest.md describes every field. Relative paths in this file start from its own directory, .planc: the project's directory is \"..\".",
  "name": "local/NAME",
  "version": "0.1.0",
  "capabilities": {
    "$comment": "What a plan may do. A plan that needs more is refused before anything runs, and the refusal names the field to add an entry to.",
    "plan": {
      "$comment": "submit: plans may be run at all (planc run, and serve's submit-plan tool).",
      "submit": true
    },
    "shell": {
      "$comment": "allow: the binaries a shell step's first word may be, compared exactly (\"bash\" does not allow \"/bin/bash\"), e.g. [\"go\", \"git\", \"bash\"]. timeout: the bound of every shell step, e.g. \"90s\". env: variables set for shell steps, e.g. {\"CGO_ENABLED\": \"0\"}; planc passes its own environment on without the variables whose names contain KEY, SECRET, TOKEN, PASSWORD or CREDENTIAL.",
      "allow": [],
      "timeout": "10m"
    },
    "spawn": {
      "$comment": "allow: the sub-capsules capsule steps may spawn from the roost (planc run --roost DIR, default ./roost), as namespaced names, e.g. [\"local/worker\"]; a capsule step names the bare name, \"worker\".",
      "allow": []
    },
    "filesystem": {
      "$comment": "read_only: paths no step may write under, relative to this file's directory, e.g. [\"../go.mod\", \"../docs\"].",
      "read_only": []
    }
  },
  "tools": {
    "$comment": "builtin: the built-in tools plans may call (compose, notes, read-file, repo-files, write-file). mcp: MCP servers over stdio whose tools plans may call, by name, e.g. {\"fs\": {\"command\": [\"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]}} (a server runs in the directory planc runs in; a first word with a slash starts from this file's directory); planc starts them to check plans against their tools.",
    "builtin": ["compose", "notes", "read-file", "repo-files", "write-file"],
    "mcp": {}
  }
}
`
