package protect

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// PathKeys returns the names of the top-level input members a writing
// tool's read_only check reads, sorted. A member matches when its name,
// lowercased with "_" and "-" removed, is one of them (so "file_path",
// "filePath" and "file-path" all match "filepath"). The member's value is
// a string or a list of strings (others are ignored); a "file://" URL
// counts as its path; relative paths resolve against the working
// directory. The slice is fresh.
func PathKeys() []string {
	keys := make([]string, 0, len(pathKeys))
	for k := range pathKeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pathKeys are the normalized member names that hold paths. "source" and
// its kin are there because moving a file out of a protected tree changes
// it.
var pathKeys = map[string]bool{
	"path": true, "paths": true, "filepath": true, "filepaths": true,
	"file": true, "files": true, "filename": true, "filenames": true,
	"destination": true, "destinations": true, "dest": true, "destpath": true,
	"target": true, "targets": true, "targetpath": true, "targetfile": true,
	"output": true, "outputpath": true, "outputfile": true, "outfile": true, "out": true,
	"source": true, "sources": true, "sourcepath": true,
	"dir": true, "directory": true, "dirpath": true,
	"newpath": true, "oldpath": true,
}

// toolPath is one path found in a tool's input.
type toolPath struct {
	key, path string
}

// toolPaths returns the paths in input's path-named top-level members, in
// the order of the members' names.
func toolPaths(input []byte) []toolPath {
	var obj map[string]json.RawMessage
	if len(input) == 0 || json.Unmarshal(input, &obj) != nil {
		return nil
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	var out []toolPath
	for _, k := range names {
		norm := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
		if !pathKeys[norm] {
			continue
		}
		var one string
		var many []any
		switch {
		case json.Unmarshal(obj[k], &one) == nil:
			many = []any{one}
		case json.Unmarshal(obj[k], &many) == nil:
		default:
			continue
		}
		for _, v := range many {
			if s, ok := v.(string); ok && s != "" {
				out = append(out, toolPath{key: k, path: filePath(s)})
			}
		}
	}
	return out
}

// filePath returns the path of a file:// URL, or s.
func filePath(s string) string {
	if !strings.HasPrefix(strings.ToLower(s), "file://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Path == "" {
		return s
	}
	return u.Path
}
