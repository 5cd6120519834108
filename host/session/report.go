package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planc/planc/internal/sessionfmt"
)

// KeepReport keeps the report of plan n, report (vm.Report.JSON), at
// reports/plan-<n>.json, atomically: a private file in reports/, synced,
// renamed into place, so that a reader sees the old report or the new
// one, never a part.
func (s *Session) KeepReport(n int, report []byte) error {
	path := filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.ReportPath(n)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	_, err = tmp.Write(report)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// SetAsideReport keeps the report of plan n that a redrive is about to
// replace, reports/plan-<n>.json, as reports/plan-<n>.redrive-<k>.json
// (S28), k being the run that wrote it: the redrive before this one (0 for
// the first run). A plan without a kept report (its last run was cut
// short, and set aside the one before when it started) has nothing to set
// aside.
func (s *Session) SetAsideReport(n, k int) error {
	from := filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.ReportPath(n)))
	to := filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.RedriveReportPath(n, k)))
	if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
