package k8sroost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"testing"
)

// evilTar is results with a file ../evil.
func evilTar(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "../evil", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("e"))
	tw.Close()
	zw.Close()
	return buf.Bytes()
}
