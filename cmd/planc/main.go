// Command planc is the command-line face of the plan compiler: it parses,
// checks, lowers and runs plans; docs/cli.md is its contract.
// It is the last stage of the flow and stays thin: every subcommand is a few
// calls into ast, parser, check and the later packages, plus flags, IO and
// exit codes.
//
// Each subcommand lives in a file of its own that defines one *command; to
// add a subcommand, write that file and list the command in commands.
// Main takes its IO as arguments and returns the exit status, so the whole
// CLI is tested in-process.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/planc/planc/ast"
)

// Exit statuses shared by every subcommand (docs/cli.md). Subcommands with more
// statuses (run's 3) define their own beside these.
const (
	exitOK    = 0 // success; for check: no errors
	exitFail  = 1 // the command ran and found errors (check), or the plan failed
	exitUsage = 2 // usage error, unreadable file, refused input
)

func main() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// env is the IO a subcommand runs against.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand.
type command struct {
	name    string // the word after planc
	summary string // one line for planc help
	// usage is the synopsis and the description of the flags, printed by
	// planc help NAME, NAME -h and after a usage error. Its first line is
	// the synopsis.
	usage string
	// run executes the command c (the command itself, for its usage) with
	// the arguments after its name and returns the exit status.
	run func(e *env, c *command, args []string) int
}

// commands lists every subcommand in the order planc help shows them.
func commands() []*command {
	return []*command{
		initCommand,
		trustCommand,
		checkCommand,
		toolsCommand,
		dumpIRCommand,
		runCommand,
		serveCommand,
		graphCommand,
		traceCommand,
		versionCommand,
		shimCommand,
		capsuleCommand,
		capsuleK8sCommand,
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Main runs planc with args (without the program name) and returns the exit
// status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "planc: no command given")
		writeUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(e, rest)
	case "-version", "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		msg := "planc: " + unknownCommand(name)
		if strings.HasPrefix(name, "-") {
			msg = fmt.Sprintf("planc: unknown flag %s; flags go after the command, as in planc check --werror plan.json", name)
		}
		fmt.Fprintln(stderr, msg)
		fmt.Fprintln(stderr, listCommands)
		return exitUsage
	}
	return c.run(e, c, rest)
}

// listCommands is the line after a usage error of planc itself (not of a
// command) saying where the commands are listed. Only planc without a
// command prints the whole list.
const listCommands = "run 'planc help' for the commands"

// help implements planc help [COMMAND].
func help(e *env, args []string) int {
	switch len(args) {
	case 0:
		writeUsage(e.stdout)
		return exitOK
	case 1:
		c := lookup(args[0])
		if c == nil {
			fmt.Fprintln(e.stderr, "planc help: "+unknownCommand(args[0]))
			fmt.Fprintln(e.stderr, listCommands)
			return exitUsage
		}
		fmt.Fprint(e.stdout, c.usage)
		return exitOK
	default:
		fmt.Fprintln(e.stderr, "planc help: give at most one command")
		fmt.Fprintln(e.stderr, listCommands)
		return exitUsage
	}
}

// unknownCommand says that name is no command, and which it may mean.
func unknownCommand(name string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if s := ast.Suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// writeUsage prints the top-level usage text.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: planc COMMAND [ARGS]\n\ncommands:\n")
	for _, c := range commands() {
		if strings.HasPrefix(c.name, "__") {
			continue // internal commands, such as the shell shim
		}
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\nrun planc help COMMAND for a command's flags\n")
	io.WriteString(w, b.String())
}
