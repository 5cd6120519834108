package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// chromiumPath is Debian's chromium, which .ci/run installs when it can.
const chromiumPath = "/usr/bin/chromium"

// chromium runs headless Chromium with args and the flags that keep it off
// the network, in its own process group, which is killed when it is done
// so no helper process of its outlives the test.
func chromium(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromiumPath, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.Output()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return string(out)
}

// barRE matches a bar as Chromium's DOM serialises it.
var barRE = regexp.MustCompile(`<rect class="bar" data-status="([a-z]+)"[^>]* fill="(#[0-9a-f]{6})"`)

// TestTraceHTMLInChromium opens the page of a real run in headless
// Chromium and counts its bars and their colours in the DOM Chromium
// built, then takes a screenshot of it.
func TestTraceHTMLInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no %s (apt-get install chromium; .ci/run installs it when it can): %v", chromiumPath, err)
	}
	dir := runPicture(t)
	page := filepath.Join(dir, "page.html")
	if r := plancTrace(t, dir, "html", "-o", page); r.code != 0 {
		t.Fatalf("trace html: %+v", r)
	}
	dom := chromium(t, "--dump-dom", "file://"+page)
	count := map[string]int{}
	for _, m := range barRE.FindAllStringSubmatch(dom, -1) {
		count[m[1]]++
		want := map[string]string{"success": "#15803d", "failed": "#b91c1c"}[m[1]]
		if m[2] != want {
			t.Errorf("a %s bar is %s in the DOM, want %s", m[1], m[2], want)
		}
	}
	if count["success"] != 3 || count["failed"] != 2 || len(count) != 2 {
		t.Errorf("the DOM has bars %v, want 3 success (greet, flaky's retry, summary) and 2 failed (flaky, lint)", count)
	}
	if n := len(regexp.MustCompile(`<details class="row"`).FindAllString(dom, -1)); n != 5 {
		t.Errorf("the DOM has %d rows, want 5", n)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	chromium(t, "--screenshot="+shot, "--window-size=1200,800", "file://"+page)
	b, err := os.ReadFile(shot)
	if err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
		t.Fatalf("no PNG screenshot at %s (%v)", shot, err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(b))
}
