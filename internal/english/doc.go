// Package english spells the numbers of messages and reports in English:
// [Plural] chooses between the singular and the plural of a word, and
// [Thousands] writes a number with a comma between groups of three digits.
// Both work on any integer type whose underlying type is int or int64.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule").
package english
