package capenv

import (
	"fmt"
	"io"
	"os"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/internal/trust"
)

// Trust records the manifest path ("" for the project's, found from the
// current directory upward) as the user trusts it now (trust.RecordUser):
// planc trust. It returns the path trusted and the SHA-256 of its bytes.
// A manifest that would be refused is not worth trusting: errs are its
// errors and nothing is recorded. err says what else went wrong.
func Trust(stdin io.Reader, path string) (trusted, sum string, errs []diag.Diagnostic, err error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", nil, fmt.Errorf("the current directory: %w", err)
		}
		if path = Find(wd); path == "" {
			return "", "", nil, fmt.Errorf("there is no %s in the current directory or a parent; name the manifest to trust, or planc init makes one", ProjectFile)
		}
	}
	var src []byte
	_, ds, err := ReadManifest(stdin, path, func(b []byte) error { src = b; return nil })
	if err != nil {
		return "", "", nil, err
	}
	for _, d := range ds {
		if d.Severity == ast.Error {
			errs = append(errs, d)
		}
	}
	if len(errs) > 0 {
		return "", "", errs, nil
	}
	if err := trust.RecordUser(path, src); err != nil {
		return "", "", nil, err
	}
	return path, trust.Sum(src), nil, nil
}
