package ansi

import "strings"

// ANSI colours for messages on a terminal.
const (
	red    = "\x1b[1;31m"
	yellow = "\x1b[1;33m"
	cyan   = "\x1b[36m"
	green  = "\x1b[1;32m"
	reset  = "\x1b[0m"
)

// Colorize colours an error message for a terminal, line by line: lines
// that start "hint:" cyan, a caret line ("^" alone but for spaces) its
// caret green, and otherwise the first " error: " red and the first
// " warning: " yellow. Other text is returned as it is.
func Colorize(msg string) string {
	lines := strings.SplitAfter(msg, "\n")
	for i, l := range lines {
		body := strings.TrimRight(l, "\n")
		nl := l[len(body):]
		switch {
		case strings.HasPrefix(body, "hint:"):
			body = cyan + body + reset
		case strings.TrimSpace(body) == "^":
			body = strings.Replace(body, "^", green+"^"+reset, 1)
		default:
			body = strings.Replace(body, " error: ", " "+red+"error:"+reset+" ", 1)
			body = strings.Replace(body, " warning: ", " "+yellow+"warning:"+reset+" ", 1)
		}
		lines[i] = body + nl
	}
	return strings.Join(lines, "")
}
