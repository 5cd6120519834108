package sandbox

import "testing"

// Steps of one scope with different protected sets and environments,
// one after the other, each get their own: a step is held to its own set
// (a write under the other step's path goes through), and sees its own
// environment.
func TestStepsOwnProtectAndEnv(t *testing.T) {
	s := protectedScope(t)
	a, b := t.TempDir(), t.TempDir()
	for i, tt := range []struct {
		protect, writable string
		env               string
	}{
		{a, b, "A"}, {b, a, "B"}, {a, b, "A"}, {b, a, "C"},
	} {
		r := s.Run(t.Context(), Spec{
			Argv:    []string{"sh", "-c", `echo "$WHICH"; (echo x > "$1/f") 2>/dev/null && echo wrote-ro; (echo x > "$2/f") && echo wrote-rw`, "sh", tt.protect, tt.writable},
			Env:     []string{"PATH=/usr/bin:/bin", "WHICH=" + tt.env},
			Protect: []string{tt.protect},
		})
		if want := tt.env + "\nwrote-rw\n"; r.Err != nil || string(r.Output) != want {
			t.Errorf("step %d: %q, %v; want %q", i, r.Output, r.Err, want)
		}
	}
}
