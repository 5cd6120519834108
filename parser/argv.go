package parser

import "github.com/google/shlex"

// SplitCommand splits a shell step's command line into words as shlex does
// (semantics S14: the runtime splits it, no shell is involved). A plain
// line (ASCII, without the quotes, backslash or # that shlex treats
// specially) is split on shlex's white space directly, its words sharing
// line's bytes: shlex.Split allocates a 4 KiB reader per call, which over a
// big plan's shell steps was the largest allocation of checking it.
func SplitCommand(line string) ([]string, error) { return splitCommand(nil, line) }

// splitCommand is SplitCommand with a plain line's words cut from n's slab.
func splitCommand(n *nodes, line string) ([]string, error) {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c >= 0x80, c == '"', c == '\'', c == '\\', c == '#':
			words, err := shlex.Split(line)
			if err != nil {
				return nil, err
			}
			return words, nil
		}
	}
	var buf [8]string
	words := buf[:0]
	for i := 0; i < len(line); {
		for i < len(line) && isShellSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isShellSpace(line[j]) {
			j++
		}
		if i < j {
			words = append(words, line[i:j])
		}
		i = j
	}
	if len(words) == 0 {
		return []string{}, nil
	}
	if n == nil {
		return append([]string(nil), words...), nil
	}
	return cutList(&n.words, words), nil
}

// isShellSpace reports whether shlex separates words at c.
func isShellSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
