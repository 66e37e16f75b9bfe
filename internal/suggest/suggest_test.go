package suggest

import (
	"math"
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"wife", "wife", 0},
		{"wief", "wife", 2},      // a transposition is two edits
		{"kitten", "sitting", 3}, // the textbook example
		{"flaw", "lawn", 2},
		{"über", "uber", 1}, // runes, not bytes (ü is two bytes)
		{"日本語", "日本", 1},
		{"abc", "xyz", 3},
	}
	for _, c := range cases {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := distance(c.b, c.a); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

func TestLimit(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{
		{"", 2},
		{"ab", 2},
		{"abcdefgh", 2},
		{"abcdefghi", 3},
		{"/people/person/spouse", 7},
		{"üüüüüüüüü", 3}, // nine runes, eighteen bytes
	}
	for _, c := range cases {
		if got := Limit(c.s); got != c.want {
			t.Errorf("Limit(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	rels := []string{"wife", "wives", "husband", "father", "mother", "son"}
	cases := []struct {
		name  string
		s     string
		names []string
		k     int
		want  []string
	}{
		{"transposition", "wief", []string{"wife", "husband"}, 3, []string{"wife"}},
		{"equal distances by name", "wief", rels, 3, []string{"wife", "wives"}},
		{"ties by name", "wifes", rels, 3, []string{"wife", "wives"}},
		{"k bounds the list", "wifes", rels, 1, []string{"wife"}},
		{"k zero", "wifes", rels, 0, nil},
		{"nearest first", "fathers", append(rels, "fathered"), 3, []string{"father", "fathered"}},
		{"beyond the limit", "fathers", rels, 3, []string{"father"}}, // mother is 3 edits away
		{"nothing near", "colleague", rels, 3, nil},
		{"the name itself is no suggestion", "wife", rels, 3, []string{"wives"}},
		{"repeated names count once", "son", []string{"sun", "sun", "son"}, 3, []string{"sun"}},
		{"a third of the length", "/people/person/spouse",
			[]string{"/people/person/spouse_s", "/people/person/sibling_s", "/location/location/contains"}, 3,
			[]string{"/people/person/spouse_s"}},
		{"short names allow two edits", "ab", []string{"xy", "xyz", "a"}, 3, []string{"a", "xy"}},
		{"no names", "wife", nil, 3, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.names)
			if got := Nearest(c.s, c.names, c.k); !slices.Equal(got, c.want) {
				t.Errorf("Nearest(%q, %q, %d) = %q, want %q", c.s, c.names, c.k, got, c.want)
			}
			if !slices.Equal(in, c.names) {
				t.Errorf("Nearest modified names: %q", c.names)
			}
		})
	}
}

// distance returns the Levenshtein distance between a and b: the number of
// rune insertions, deletions and substitutions that turn a into b (bounded
// without a bound).
func distance(a, b string) int {
	return bounded(a, b, math.MaxInt)
}
