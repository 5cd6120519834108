package protect

import "fmt"

// SymlinkError is the refusal of a path with a symbolic link in it: the
// built-in tools follow none, so that no step can redirect their writes.
type SymlinkError struct {
	// Name is the path as the tool was given it.
	Name string
	// Link is the component found to be a symbolic link, as a prefix of
	// Name; "" when it could not be told.
	Link string
	// Target is the path Name resolves to now, "" when it cannot be
	// resolved.
	Target string
}

func (e *SymlinkError) Error() string {
	link := ""
	if e.Link != "" {
		link = fmt.Sprintf(" (%q is one)", e.Link)
	}
	fix := "write to the path it resolves to"
	if e.Target != "" {
		fix = fmt.Sprintf("write to the path it resolves to, %q", e.Target)
	}
	return fmt.Sprintf("%q goes through a symbolic link%s; built-in tools follow no symbolic links, so that no step can redirect a write: %s",
		e.Name, link, fix)
}

// ProtectedError is the refusal of a tool's write that lands on a
// protected path. Its text says what was refused and what to do.
type ProtectedError struct {
	// Name is the path as the tool was given it.
	Name string
	// Path is where the write landed, absolute: the opened file's or
	// directory's real path where it can be known.
	Path string
	// Protected is the protected path it is, or lies under.
	Protected string
	// HardLink is true when the file opened is another name of a file
	// under the protected directory Protected.
	HardLink bool
}

func (e *ProtectedError) Error() string {
	at := ""
	if e.Path != "" && e.Path != e.Protected {
		at = fmt.Sprintf(" (as opened, %q)", e.Path)
	}
	what := "is the protected path %q or lies under it"
	if e.HardLink {
		what = "is a hard link to a file under the protected path %q"
	}
	return fmt.Sprintf("refused: %q%s "+what+", which no tool call may change; write elsewhere", e.Name, at, e.Protected)
}
