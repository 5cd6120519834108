package shim

// The shim: how a step is kept from writing its protected paths, and from
// undoing that.
//
// The shim runs in one of three modes: `planc __shim -lock MODE -ro PATH…
// -cgroup DIR [-report] -- FILE ARGV…` runs one step; `… -cgroup SCOPE
// -report -spawn` is a scope's spawner (spawner_linux.go),
// which starts many; `… -probe` sets everything up and exits, to learn
// whether this machine allows it (the sandbox's protect_linux.go). The same entry also
// runs a scope's guardian, `planc __shim -cgroup SCOPE -guard`, which
// protects nothing and sets nothing up (the sandbox's guard_linux.go). Run uses the
// spawner, a shim per step only for a request too big for the spawner's
// socket; a capsule's command entrypoint runs through a shim of its own
// (Contain).
//
// planc starts the shim in a new mount namespace, a new cgroup namespace
// rooted at the cgroup DIR it starts in (planc clones it into DIR with
// CLONE_INTO_CGROUP, or DIR is planc's own), and a new PID namespace of
// which the shim is process 1. When planc is
// not root, the same clone also makes a new user namespace whose only
// user and group are planc's own, and gives the shim CAP_SYS_ADMIN and
// CAP_SETPCAP over that namespace alone (ambient): an unprivileged user
// namespace with a private mount namespace, as bubblewrap makes one. On
// one locked OS thread the shim then:
//
//  1. makes every mount in its namespace a slave of the host's: nothing
//     it mounts propagates back, while the host's new mounts still show;
//  2. bind-mounts each protected path onto itself and makes the bind
//     read-only, recursively (mount_setattr with AT_RECURSIVE): writing,
//     truncating or creating under it fails with EROFS; unlinking,
//     renaming or renaming over it fails with EBUSY (it is a mount point
//     in the step's namespace); a hard link out of it fails with EXDEV.
//     Everything else, the directories that hold a protected path
//     included, stays exactly as writable as it was: the step can create
//     and write files next to a protected file or in the working directory
//     that holds the session directory;
//  3. binds DIR over every cgroup2 mount, read-only, and makes every
//     cgroup v1 mount read-only: the step sees its own cgroup
//     namespace's tree and no cgroup above it, so it can neither write its
//     pid into an ancestor's cgroup.procs nor open an ancestor to clone a
//     process into it (CLONE_INTO_CGROUP only needs a descriptor of the
//     directory, which a read-only mount alone would still give);
//  4. makes /sys read-only, covers /dev with a private tmpfs holding only
//     null, zero, full, random, urandom and tty (the host's nodes bound
//     in), /dev/shm and a new devpts instance (bubblewrap's --dev: no step
//     reaches the user's terminal), and mounts a new /proc for its PID
//     namespace: no process outside the namespace (planc, the spawner's
//     parent, any other process of the machine) has a /proc/PID a step
//     could use for root, cwd, fd or mem, nor a PID a step could ptrace,
//     signal or take a pidfd of; in it /proc/sys and the other kernel
//     knobs are read-only and runc's masked paths masked (view_linux.go):
//     a root step keeps uid 0, which is all a write to core_pattern needs;
//  5. stays in the cgroup it was cloned into: the spawner in the scope's
//     own directory, so that its steps' cgroup namespace is rooted at the
//     scope and they see its tree (a move would be a cgroup migration,
//     which waits for an RCU grace period; sandbox's spawner_linux.go),
//     a per-step shim in its step's leaf. Meanwhile another goroutine
//     takes every signal (Main), done before any step starts;
//  6. locks down (lockdown_linux.go): not dumpable, no_new_privs, every
//     capability dropped from every set but, for root, the file-access
//     ones (RootKeeps); under the landlock lock (LockLandlock) a Landlock
//     domain that denies no file access but, being a domain, forbids
//     every change to the mount topology and ptrace access to any process
//     outside it; and a seccomp filter (seccomp_linux.go) that denies the
//     mount API, setns, namespace-making clone and unshare,
//     open_by_handle_at and a few kernel surfaces. The caps lock
//     (LockCaps) is the same without Landlock, for kernels that have
//     none;
//  7. starts the step as its own child, from the same OS thread (mount
//     namespaces, capabilities, no_new_privs, Landlock domains and
//     seccomp filters all belong to the thread, and fork and exec keep
//     the thread's), and, as process 1 of the namespace, reaps the
//     processes the steps orphan.
//
// A shim for one step exits with the step's exit status, or 128+N when
// signal N ended it (process 1 of a PID namespace cannot end itself by a
// signal; bubblewrap does the same). Ending, it ends every process left in
// its namespace. It writes a failed set-up to fd 3 when -report says fd 3
// is the report pipe (and closes it when the step has started), to
// standard error otherwise; the spawner sends it on its socket (fd 3).
//
// Why not Landlock alone: Landlock only grants, and a grant on a directory
// covers every file created beneath it later. To keep a step from writing
// plans/ inside the working directory W, W itself could not be granted
// WRITE_FILE, so a file the step creates directly in W (or in a directory
// it creates there, like cargo's target/) could not be written; likewise
// next to a protected file, which planc must allow.
//
// Limits: the protection holds against a step's file operations, not
// against a root step that sets out to defeat it through raw block
// devices or the like (it keeps root's file access). The directories
// above a protected path are bound onto themselves first
// (ancestors_linux.go), so a step cannot rename them and put other files
// at a protected path. A path that does not exist when the shim or spawner starts
// is not protected. A hard link to a protected file made elsewhere before
// the step is the same file, and is not protected. chmod, chown and
// utimes on a protected path fail with EROFS like any write. A protected
// path that is a symbolic link protects its target, not the link. clone3
// cannot be filtered by its flags (they are in memory): a step can make a
// user namespace with it, in which the seccomp filter still denies every
// mount call and the kernel locks the copied mounts, and it can start a
// process in another cgroup of its own plan's scope (which it sees
// read-only); that process ends with the plan at the latest.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// The ways a step is kept from undoing its read-only binds.
const (
	LockLandlock = "landlock" // privileges dropped, seccomp, a Landlock domain
	LockCaps     = "caps"     // privileges dropped, seccomp, no Landlock
)

// FDReport is the shim's report pipe, or the spawner's socket.
const FDReport = 3

// Mode is what a shim is started to do.
type Mode int

const (
	// ModeStep runs one command, the one after "--".
	ModeStep Mode = iota
	// ModeSpawn serves as the scope's spawner of protected steps on its
	// socket, fd 3 (-spawn).
	ModeSpawn
	// ModeProbe sets everything up and exits, to learn whether this
	// kernel and this user allow it (-probe).
	ModeProbe
	// ModeGuard is the scope's guardian (the sandbox's guard_linux.go): fd 3 is its
	// lifeline (-guard).
	ModeGuard
)

// modeFlags are the flags that end the command line of each mode but
// ModeStep.
var modeFlags = map[Mode]string{ModeSpawn: "-spawn", ModeProbe: "-probe", ModeGuard: "-guard"}

// Config is the shim's command line: what planc builds (args) and
// what the shim parses (Parse), one type both ways, so that the two
// cannot drift.
type Config struct {
	Mode   Mode
	Lock   string
	RO     []string
	Cgroup string // the cgroup the shim starts in: the root of its view
	Report bool   // fd 3 is the report pipe, or the spawner's socket
	File   string // ModeStep: the command to run, and its argv
	Argv   []string
}

// args returns the shim's command line, shim (planc itself when "") its
// first word, after checking it as the shim will (check): every caller
// gets the same checks.
func (c Config) Args(shim string) ([]string, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	args := []string{Path(shim), Command}
	if c.Lock != "" {
		args = append(args, "-lock", c.Lock)
	}
	for _, p := range c.RO {
		args = append(args, "-ro", p)
	}
	args = append(args, "-cgroup", c.Cgroup)
	if c.Report {
		args = append(args, "-report")
	}
	if c.Mode == ModeStep {
		return append(append(args, "--", c.File), c.Argv...), nil
	}
	return append(args, modeFlags[c.Mode]), nil
}

// wrap makes cmd run through the shim c describes (c.File and c.Argv are
// cmd's): its Path and Args become the shim's.
func (c Config) Wrap(cmd *exec.Cmd, shim string) error {
	c.Mode, c.File, c.Argv = ModeStep, cmd.Path, cmd.Args
	args, err := c.Args(shim)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args = args[0], args
	return nil
}

// Parse parses the arguments after __shim.
func Parse(args []string) (Config, error) {
	var c Config
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			if len(args) < 3 {
				return c, errors.New("no command after --")
			}
			c.Mode, c.File, c.Argv = ModeStep, args[1], args[2:]
			return c, c.Check()
		case a == "-report":
			c.Report = true
			args = args[1:]
		case len(args) == 1 && (a == "-spawn" || a == "-probe" || a == "-guard"):
			for m, f := range modeFlags {
				if f == a {
					c.Mode = m
				}
			}
			return c, c.Check()
		case len(args) > 1 && (a == "-ro" || a == "-lock" || a == "-cgroup"):
			switch a {
			case "-ro":
				c.RO = append(c.RO, args[1])
			case "-lock":
				c.Lock = args[1]
			case "-cgroup":
				c.Cgroup = args[1]
			}
			args = args[2:]
		default:
			return c, fmt.Errorf("unexpected argument %q", a)
		}
	}
	return c, errors.New("no command after --")
}

// check reports what the command line lacks, or holds wrongly.
func (c Config) Check() error {
	switch {
	case c.Cgroup == "":
		return errors.New("-cgroup is required")
	case c.Mode == ModeSpawn && !c.Report:
		return errors.New("the spawner needs its socket on fd 3 (-report)")
	case c.Mode == ModeStep && c.File == "":
		return errors.New("no command after --")
	}
	for _, p := range c.RO {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("protected path %q is not absolute", p)
		}
	}
	return nil
}

// Main is `planc __shim`, with the arguments after __shim, which a
// Scope (or Contain) starts in new namespaces: it makes the protected
// paths read-only, hides the cgroups above its own and every process
// outside, drops what could undo that, and then runs one step or, with
// -spawn, serves as the scope's spawner of protected steps on fd 3; with
// -guard it runs guard, the sandbox's guardian, on the scope's cgroup. It
// returns the exit status for planc to exit with: the step's, or 127
// when the set-up failed, after writing why to fd 3 when -report says it
// is the report pipe, to standard error otherwise.
func Main(args []string, guard func(cgroup string) int) int {
	c, err := Parse(args)
	report := 2
	if c.Report {
		// fd 3 is used raw: an *os.File for it could be finalized,
		// closing it.
		report = FDReport
		unix.FcntlInt(FDReport, unix.F_SETFD, unix.FD_CLOEXEC)
	}
	// The step gets standard input, output and error, nothing else.
	unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	say := func(msg string) int {
		switch {
		case report == 2:
			msg = "planc " + Command + ": " + msg + "\n"
		case c.Mode == ModeSpawn: // the socket carries replies
			msg = string(AppendReply(nil, Reply{Kind: ReplyFailed, Err: msg}))
		}
		unix.Write(report, []byte(msg))
		return 127
	}
	if err != nil {
		return say(err.Error())
	}
	if c.Mode == ModeGuard {
		return guard(c.Cgroup)
	}
	// As process 1 of its PID namespace the shim gets only the signals it
	// handles: it takes them all and lets them pass (planc signals the
	// steps themselves), so that no SIGTERM meant for the step, nor any
	// signal a step sends, ends it and with it every step. Taking a signal
	// is a round trip with the Go runtime's signal thread, one per signal,
	// which on a busy machine adds milliseconds: it overlaps the set-up
	// (no step runs yet to send one) and is done before a step starts.
	caught := make(chan struct{})
	go func() {
		signal.Notify(make(chan os.Signal, 1))
		close(caught)
	}()
	runtime.LockOSThread() // the thread that is restricted is the one that starts the steps
	if c.Mode == ModeSpawn {
		return serveSpawner(c, caught)
	}
	err = shimSetUp(c)
	<-caught
	if err != nil {
		return say("protecting the step's read-only paths: " + err.Error())
	}
	if c.Mode == ModeProbe {
		return 0
	}
	return runOne(c, say)
}

// shimSetUp does steps 1 to 4 and 6 of the shim.
func shimSetUp(c Config) error {
	if c.Lock != LockLandlock && c.Lock != LockCaps {
		return fmt.Errorf("unknown lock %q", c.Lock)
	}
	prog, err := stepFilter()
	if err != nil {
		return err
	}
	if err := setUpView(c); err != nil {
		return err
	}
	var keep []uintptr
	if os.Getuid() == 0 {
		keep = RootKeeps
	}
	return lockDown(c.Lock, keep, prog)
}

// runOne starts the step as the shim's child and reaps every process of
// the namespace until the step has ended; it returns the step's exit
// status.
func runOne(c Config, say func(string) int) int {
	cmd := &exec.Cmd{Path: c.File, Args: c.Argv, Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		return say(fmt.Sprintf("exec %s: %v", c.File, bare(err)))
	}
	if c.Report {
		unix.Close(FDReport) // set up: planc's read of the report ends
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 127 // no child left: cannot happen while the step runs
		}
		if got != pid {
			continue // an orphan of the step
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// Path is the shim executable: shim, or planc itself.
func Path(shim string) string {
	if shim == "" {
		return "/proc/self/exe"
	}
	return shim
}

// bare drops an *os.PathError's operation and path, which the message
// around it gives.
func bare(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
