package vm

import (
	"bytes"
	"encoding/json"
)

// JSON is the report as planc returns it, the one encoding every caller
// uses: the JSON `planc run` prints on standard output, a sub-capsule
// answers with, serve's submit-plan returns and the session keeps (S24):
// indented by two spaces, <, > and & as they are, ending in a newline.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
