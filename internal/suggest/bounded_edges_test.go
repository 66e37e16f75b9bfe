package suggest

import (
	"testing"
)

// boundedCases are distances at the edge of the limit, with either string
// the longer: bounded gives the distance when it is within the limit, and
// some number above the limit otherwise.
var boundedCases = []struct {
	a, b  string
	limit int
	want  int // the distance
}{
	{"ab", "abcd", 2, 2},
	{"ab", "abcde", 2, 3},
	{"abcde", "ab", 2, 3},
	{"abcd", "ab", 2, 2},
	{"", "abc", 2, 3},
	{"abc", "", 3, 3},
	{"kitten", "sitting", 3, 3},
	{"kitten", "sitting", 2, 3},
	{"wief", "wife", 1, 2},
	{"wief", "wife", 2, 2},
}

// TestBounded checks bounded on boundedCases.
func TestBounded(t *testing.T) {
	for _, c := range boundedCases {
		got := bounded(c.a, c.b, c.limit)
		if c.want <= c.limit && got != c.want || c.want > c.limit && got <= c.limit {
			t.Errorf("bounded(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}
