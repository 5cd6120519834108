package protect

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// PathKeys returns the names of the input members a writing tool's
// read_only check reads, sorted. A member matches when its name,
// lowercased with "_" and "-" removed, is one of them or ends with one of
// pathSuffixes (so "file_path", "filePath", "file-path" and
// "destination_path" all match), at any depth of the input: members of
// nested objects, and of objects in lists, are read too. The member's value
// is a string or a list of strings (others are ignored); a "file://" URL
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
// it; "from" and "to", "src" and "dst" are how copy and move tools name
// theirs.
var pathKeys = map[string]bool{
	"path": true, "paths": true, "filepath": true, "filepaths": true,
	"file": true, "files": true, "filename": true, "filenames": true,
	"destination": true, "destinations": true, "dest": true, "destpath": true,
	"target": true, "targets": true, "targetpath": true, "targetfile": true,
	"output": true, "outputpath": true, "outputfile": true, "outfile": true, "out": true,
	"source": true, "sources": true, "sourcepath": true,
	"dir": true, "directory": true, "dirpath": true,
	"newpath": true, "oldpath": true,
	"from": true, "to": true, "src": true, "dst": true,
}

// pathSuffixes end normalized member names that hold paths
// ("destinationpath", "configfile", "workdir").
var pathSuffixes = []string{"path", "paths", "file", "files", "filename", "filenames", "dir", "directory", "dest", "destination", "target"}

// isPathKey says whether the input member k holds paths.
func isPathKey(k string) bool {
	norm := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
	if pathKeys[norm] {
		return true
	}
	for _, suf := range pathSuffixes {
		if strings.HasSuffix(norm, suf) {
			return true
		}
	}
	return false
}

// toolPath is one path found in a tool's input.
type toolPath struct {
	key, path string
}

// maxPathDepth bounds how deep toolPaths reads an input (the plan's own
// bound on nesting is lower).
const maxPathDepth = 64

// toolPaths returns the paths in input's path-named members at any depth,
// each with its member's name as a dotted path from the top ("options.path",
// "files.0.path"), members in the order of their names.
func toolPaths(input []byte) []toolPath {
	var v any
	if len(input) == 0 || json.Unmarshal(input, &v) != nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []toolPath
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		if depth > maxPathDepth {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			names := make([]string, 0, len(v))
			for k := range v {
				names = append(names, k)
			}
			slices.Sort(names)
			for _, k := range names {
				key := prefix + k
				if isPathKey(k) {
					switch x := v[k].(type) {
					case string:
						if x != "" {
							out = append(out, toolPath{key: key, path: filePath(x)})
						}
						continue
					case []any:
						for _, e := range x {
							if s, ok := e.(string); ok && s != "" {
								out = append(out, toolPath{key: key, path: filePath(s)})
							}
						}
					}
				}
				walk(key+".", v[k], depth+1)
			}
		case []any:
			for i, e := range v {
				if _, isStr := e.(string); !isStr {
					walk(prefix+strconv.Itoa(i)+".", e, depth+1)
				}
			}
		}
	}
	walk("", obj, 0)
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
