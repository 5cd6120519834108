package shell

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// Contain makes cmd, which must not have been started, run as a protected
// step runs (shim_linux.go): through planc's shim (/proc/self/exe
// __shim), in namespaces of its own with the paths in protect (and those
// this process was handed in EnvProtected) read-only, its view of the
// cgroups rooted at this process's own cgroup, no process outside its own
// in sight, and the privileges that could undo that dropped. A capsule's
// command entrypoint runs so. cmd keeps its standard streams, directory
// and environment; its SysProcAttr is replaced, and it runs in a session
// of its own. Its exit status is the command's, 128+N when signal N ended
// the command, and 127 with the reason on its standard error when the
// set-up failed.
//
// When protection is off here, Contain leaves cmd as it was and returns
// the line that says why (ProtectionOff's); with nothing to protect it
// leaves cmd as it was and returns "".
func Contain(cmd *exec.Cmd, protect []string) (off string, err error) {
	protect = cleanProtect(append(inherited(), protect...))
	if len(protect) == 0 {
		return "", nil
	}
	for _, p := range protect {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("protected path %q is not absolute", p)
		}
	}
	m := protection("")
	if m.lock == "" {
		return m.off, nil
	}
	dir, err := OwnCgroupDir()
	if err != nil {
		return "", err
	}
	args := append(shimArgs("", m.lock, protect), "-cgroup", dir, "--", cmd.Path)
	cmd.Args = append(args, cmd.Args...)
	cmd.Path = args[0]
	cmd.SysProcAttr = m.attr(-1)
	return "", nil
}
