// Package ansi colours drumql's error messages for a terminal
// ([Colorize]): "error:" red, "warning:" yellow, hint lines cyan, the caret
// under a source line green. The caller decides whether to colour (a
// terminal, and NO_COLOR unset); the text is otherwise unchanged.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule").
package ansi
