package eval

import (
	"slices"
	"testing"
)

// TestCompareValues: among equal confidences, numbers first by value,
// then names in byte order; SortAnswers sorts so.
func TestCompareValues(t *testing.T) {
	as := []Answer{
		{Values: []string{"b"}, Confidence: 0.5},
		{Values: []string{"10"}, Confidence: 0.5},
		{Values: []string{"2"}, Confidence: 0.5},
		{Values: []string{"-3"}, Confidence: 0.5},
		{Values: []string{"1.0"}, Confidence: 0.5},
		{Values: []string{"1"}, Confidence: 0.5},
		{Values: []string{"1e400"}, Confidence: 0.5}, // out of range: a name
		{Values: []string{"a"}, Confidence: 0.5},
		{Values: []string{"z"}, Confidence: 0.9},
	}
	SortAnswers(as)
	var got []string
	for _, a := range as {
		got = append(got, a.Values[0])
	}
	if want := []string{"z", "-3", "1", "1.0", "2", "10", "1e400", "a", "b"}; !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
	if CompareValues([]string{"2", "b"}, []string{"10", "a"}) >= 0 || CompareValues([]string{"x", "2"}, []string{"x", "10"}) >= 0 ||
		CompareValues([]string{"x"}, []string{"x", "1"}) >= 0 || CompareValues([]string{"x", "1"}, []string{"x", "1"}) != 0 {
		t.Errorf("CompareValues: position by position, numbers by value")
	}
}
