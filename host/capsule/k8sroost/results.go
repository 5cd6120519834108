package k8sroost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ChunkSize is the most bytes of the results one output ConfigMap holds:
// a ConfigMap holds at most 1 MiB, and its binaryData travels as base64.
const ChunkSize = 512 << 10

// MaxResults bounds the packed results of one delegation (the answer, its
// trace and the rest of its session directory, gzipped): 256 MiB.
const MaxResults = 256 << 20

// The keys of the output ConfigMap PodName-out, written last: its being
// there says every chunk is.
const (
	keyChunks = "chunks"
	keySize   = "size"
	keySHA256 = "sha256"
	keyChunk  = "chunk"
)

// StatusFile is the file of the results that holds the child's last
// status line: its outcome and reason.
const StatusFile = "status.json"

// pack returns dir's regular files, under their paths relative to dir, as
// a gzipped tar: what the child sends home. Links and other files are
// left out: the parent writes only regular files.
func pack(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: fi.Size(), Typeflag: tar.TypeReg, ModTime: fi.ModTime()}); err != nil {
			return err
		}
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unpack writes the regular files of the gzipped tar b under dir, each at
// its relative path, replacing a file of the same name except those in
// keep (what the parent wrote itself). A path that is absolute or leaves
// dir is an error, and nothing after it is written.
func unpack(b []byte, dir string, keep ...string) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || name == "." {
			return fmt.Errorf("the results name %q, outside the delegation directory", h.Name)
		}
		skip := false
		for _, k := range keep {
			skip = skip || name == k
		}
		if skip {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, io.LimitReader(tr, h.Size))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}

// upload writes b as the output ConfigMaps of the Pod pod: its chunks,
// then PodName-out with their count and SHA-256, each owned by owner.
func upload(ctx context.Context, cs Client, ns, pod string, meta metav1.ObjectMeta, b []byte) error {
	if len(b) > MaxResults {
		return fmt.Errorf("the results are %d bytes packed, over the %d bytes planc sends home", len(b), MaxResults)
	}
	cms := cs.CoreV1().ConfigMaps(ns)
	n := 0
	for off := 0; off < len(b) || n == 0; off += ChunkSize {
		end := min(off+ChunkSize, len(b))
		cm := &corev1.ConfigMap{ObjectMeta: outputMeta(meta, pod+"-out-"+strconv.Itoa(n)), BinaryData: map[string][]byte{keyChunk: b[off:end]}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return apiRefusal(err, "create", "configmaps", ns, "send the results home")
		}
		n++
	}
	sum := sha256.Sum256(b)
	cm := &corev1.ConfigMap{ObjectMeta: outputMeta(meta, pod+"-out"), Data: map[string]string{
		keyChunks: strconv.Itoa(n), keySize: strconv.Itoa(len(b)), keySHA256: hex.EncodeToString(sum[:]),
	}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return apiRefusal(err, "create", "configmaps", ns, "send the results home")
	}
	return nil
}

// outputMeta is meta (the Pod's labels and owner) for the output
// ConfigMap name.
func outputMeta(meta metav1.ObjectMeta, name string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Labels: map[string]string{}, Annotations: meta.Annotations, OwnerReferences: meta.OwnerReferences}
	for k, v := range meta.Labels {
		m.Labels[k] = v
	}
	m.Labels[LabelRole] = "output"
	return m
}

// errNoResults is download's error when the Pod sent none.
var errNoResults = errors.New("it sent no results")

// download reads the results the Pod pod uploaded and checks them
// against their SHA-256; errNoResults when there are none.
func download(ctx context.Context, cs Client, ns, pod string) ([]byte, error) {
	cms := cs.CoreV1().ConfigMaps(ns)
	head, err := cms.Get(ctx, pod+"-out", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, errNoResults
	}
	if err != nil {
		return nil, apiRefusal(err, "get", "configmaps", ns, "read the results")
	}
	n, err1 := strconv.Atoi(head.Data[keyChunks])
	size, err2 := strconv.Atoi(head.Data[keySize])
	if err1 != nil || err2 != nil || n < 1 || size < 0 || size > MaxResults {
		return nil, fmt.Errorf("configmap/%s-out does not say how many results it holds: %v", pod, head.Data)
	}
	b := make([]byte, 0, size)
	for i := range n {
		cm, err := cms.Get(ctx, pod+"-out-"+strconv.Itoa(i), metav1.GetOptions{})
		if err != nil {
			return nil, apiRefusal(err, "get", "configmaps", ns, fmt.Sprintf("read part %d of the results", i))
		}
		b = append(b, cm.BinaryData[keyChunk]...)
	}
	sum := sha256.Sum256(b)
	if len(b) != size || hex.EncodeToString(sum[:]) != head.Data[keySHA256] {
		return nil, fmt.Errorf("the results in configmap/%s-out… are %d bytes with SHA-256 %x, not the %d bytes %s they were sent as", pod, len(b), sum, size, head.Data[keySHA256])
	}
	return b, nil
}
