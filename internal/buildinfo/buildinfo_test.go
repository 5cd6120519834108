package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLine(t *testing.T) {
	suffix := " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct{ module, want string }{
		{"", "planc 0.1.0-dev" + suffix},
		{"v0.1.0", "planc 0.1.0-dev (module v0.1.0)" + suffix},
	}
	for _, tt := range tests {
		if got := Line("planc", "0.1.0-dev", tt.module); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.module, got, tt.want)
		}
	}
}

func TestModule(t *testing.T) {
	for v, want := range map[string]string{"": "", "(devel)": "", "v1.2.3": "v1.2.3"} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "x", Version: v}}
		if got := moduleOf(bi); got != want {
			t.Errorf("module version %q: got %q, want %q", v, got, want)
		}
	}
	if got := Module(); got != "" {
		t.Errorf("Module() under go test = %q, want \"\"", got) // go test records (devel)
	}
}
