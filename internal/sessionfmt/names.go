package sessionfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// The session directory's folders for what a run keeps (S24): the plan
// files, the whole output of every dispatched attempt, and the reports.
// Paths below are relative to the session directory, with "/" separators
// (filepath.FromSlash makes them the system's).
const (
	PlansDir   = "plans"
	OutputsDir = "outputs"
	ReportsDir = "reports"
	LocksDir   = "locks"
)

// PlanFile returns plan n's file, "plans/plan-<n>.json": what plan_start's
// plan_file holds.
func PlanFile(n int) string { return PlansDir + "/plan-" + strconv.Itoa(n) + ".json" }

// PlanNumber returns n for a plan file "plans/plan-<n>.json" (n ≥ 1,
// written without leading zeros), and false for any other text.
func PlanNumber(planFile string) (int, bool) {
	rest, ok := strings.CutPrefix(planFile, PlansDir+"/plan-")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, ".json")
	if !ok || digits == "" || digits[0] == '0' || len(digits) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || strconv.Itoa(n) != digits {
		return 0, false
	}
	return n, true
}

// maxStepName bounds the escaped step id in a file name, so that with its
// hash and the ".<attempt>.txt" suffix a name stays far under the usual
// 255-byte limit.
const maxStepName = 128

// StepFileName returns the name a step id takes in file names: bytes in
// [A-Za-z0-9_-] as they are, every other byte as %XX (two upper-case hex
// digits), so that any id — empty, ".", "..", with "/", NUL, spaces,
// non-ASCII (S4) — gives a safe name, never hidden, never a path, and two
// ids never give the same name. StepID reverses it. An escaped id over 128
// bytes is shortened to its first bytes (never splitting a %XX) followed
// by "~" and 32 hex digits of the id's SHA-256; "~" marks such a name,
// which cannot be reversed but stays unique.
func StepFileName(id string) string {
	var b strings.Builder
	b.Grow(len(id))
	for i := 0; i < len(id); i++ {
		c := id[i]
		if plainByte(c) {
			b.WriteByte(c)
			continue
		}
		const hexDigits = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	name := b.String()
	if len(name) <= maxStepName {
		return name
	}
	cut := maxStepName
	if i := strings.LastIndexByte(name[:cut], '%'); i >= cut-2 {
		cut = i
	}
	sum := sha256.Sum256([]byte(id))
	return name[:cut] + "~" + hex.EncodeToString(sum[:16])
}

// plainByte reports whether c stands for itself in StepFileName.
func plainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// StepID returns the step id StepFileName gave name, and false when name
// is not one of its results or was shortened (holds "~").
func StepID(name string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case plainByte(c):
			b.WriteByte(c)
		case c == '%' && i+2 < len(name) && upperHex(name[i+1]) && upperHex(name[i+2]):
			v, _ := strconv.ParseUint(name[i+1:i+3], 16, 8)
			if plainByte(byte(v)) {
				return "", false // StepFileName never escapes a plain byte
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", false
		}
	}
	return b.String(), true
}

func upperHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

// OutputPath returns where the whole output of one dispatched attempt of a
// step of plan n is kept (S24): "outputs/plan-<n>/<StepFileName(id)>.<attempt>.txt".
// The host writes it for every dispatched attempt, an empty output
// included, before the dispatch returns to the VM (so before the attempt's
// plan_step line): a redrive reads it back for a step it reuses.
func OutputPath(n int, stepID string, attempt int) string {
	return OutputDir(n) + "/" + StepFileName(stepID) + "." + strconv.Itoa(attempt) + ".txt"
}

// OutputDir returns the directory of plan n's kept outputs,
// "outputs/plan-<n>".
func OutputDir(n int) string { return OutputsDir + "/plan-" + strconv.Itoa(n) }

// OutputIndexPath returns where plan n's output index is kept:
// "outputs/plan-<n>.index.jsonl", one line per dispatched attempt of every
// run of the plan (IndexRecord), beside the directory of its kept outputs.
func OutputIndexPath(n int) string {
	return OutputsDir + "/plan-" + strconv.Itoa(n) + ".index.jsonl"
}

// LockFile returns plan n's lock file, "locks/plan-<n>.lock": the planc
// that runs or redrives the plan holds a lock on it (flock on Unix) and
// writes its pid into it, so that a second one is refused (S27). The
// kernel releases the lock when that planc dies; the file stays.
func LockFile(n int) string { return LocksDir + "/plan-" + strconv.Itoa(n) + ".lock" }

// ReportPath returns where plan n's report is kept, exactly as returned
// (S24): "reports/plan-<n>.json", written atomically when the plan ends;
// each redrive replaces it with its own (S28).
func ReportPath(n int) string { return ReportsDir + "/plan-" + strconv.Itoa(n) + ".json" }

// RedriveReportPath returns where the report of run k of plan n is kept
// once redrive k+1 has replaced ReportPath(n) (S28):
// "reports/plan-<n>.redrive-<k>.json", k = 0 for the first run's report, k
// for the k-th redrive's. Redrive K moves ReportPath(n) there with k = K-1
// before it writes its own.
func RedriveReportPath(n, k int) string {
	return ReportsDir + "/plan-" + strconv.Itoa(n) + ".redrive-" + strconv.Itoa(k) + ".json"
}
