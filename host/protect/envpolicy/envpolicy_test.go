package envpolicy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"MY_API_KEY": true, "GITHUB_TOKEN": true, "aws_secret_access_key": true, "DB_PASSWORD": true,
		"GOOGLE_APPLICATION_CREDENTIALS": true, "KeyChain": true, "npm_config_token": true,
		"PATH": false, "HOME": false, "LANG": false, "PLANC_OBJECTIVE_FILE": false, "PASSWD": false, "TOKE": false,
	} {
		if got := Secret(name); got != want {
			t.Errorf("Secret(%q) = %v", name, got)
		}
	}
}

func TestEnviron(t *testing.T) {
	base := []string{"PATH=/bin", "MY_API_KEY=k1", "HOME=/root", "GITHUB_TOKEN=t1", "RUST_LOG=info", "odd", "EMPTY="}
	tests := []struct {
		name string
		set  map[string]string
		want []string
	}{
		{"policy alone", nil, []string{"PATH=/bin", "HOME=/root", "RUST_LOG=info", "odd", "EMPTY="}},
		{"pass and set", map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}", "RUST_LOG": "debug", "URL": "https://${HOME}:$$${EMPTY}"},
			[]string{"PATH=/bin", "HOME=/root", "odd", "EMPTY=", "GITHUB_TOKEN=t1", "RUST_LOG=debug", "URL=https:///root:$"}},
		{"rename a secret", map[string]string{"KEY_FOR_TOOL": "${MY_API_KEY}"},
			[]string{"PATH=/bin", "HOME=/root", "RUST_LOG=info", "odd", "EMPTY=", "KEY_FOR_TOOL=k1"}},
		{"unset reference sets nothing", map[string]string{"NPM_TOKEN": "${NPM_TOKEN}", "HOME": "${NOPE}/x"},
			[]string{"PATH=/bin", "RUST_LOG=info", "odd", "EMPTY="}},
		{"literal secret", map[string]string{"MY_API_KEY": "literal"},
			[]string{"PATH=/bin", "HOME=/root", "RUST_LOG=info", "odd", "EMPTY=", "MY_API_KEY=literal"}},
	}
	for _, tt := range tests {
		got := Environ(base, tt.set)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
	if got := Environ(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("an empty environment: %#v", got)
	}
}
