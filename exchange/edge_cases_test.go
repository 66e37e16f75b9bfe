package exchange

import (
	"strings"
	"testing"
)

// countCases are AnyBURL lines at the edge of their counts: correct at
// most predicted, and a weight of 0 for none correct; want is the error,
// or the weight read (smoothing 0 and DefaultSmoothing).
var countCases = []struct {
	line       string
	want       string
	plain, def float64
}{
	{"20\t20\t1\tr(X,Y) <= s(X,Y)", "", 1, 0.8},
	{"20\t21\t1\tr(X,Y) <= s(X,Y)", "e.txt:1:4: correct 21 is more than predicted 20", 0, 0},
	{"0\t1\t1\tr(X,Y) <= s(X,Y)", "e.txt:1:3: correct 1 is more than predicted 0", 0, 0},
	{"3\t1\t0.3333\tr(X,Y) <= s(X,Y)", "", 0.3333, 0.125},
	{"1\t1\t1\tr(X,Y) <= s(X,Y)", "", 1, 0.1667},
}

// TestCountEdges reads each line of countCases with no smoothing and
// with the default.
func TestCountEdges(t *testing.T) {
	for _, c := range countCases {
		for _, s := range []int{0, DefaultSmoothing} {
			res, err := ReadAnyBURL("e.txt", strings.NewReader(c.line+"\n"), ReadOptions{Smoothing: s})
			if c.want != "" {
				if err == nil || err.Error() != c.want {
					t.Errorf("%q: error %v, want %s", c.line, err, c.want)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%q: %v", c.line, err)
			}
			want := c.plain
			if s != 0 {
				want = c.def
			}
			if len(res.Program.Rules) != 1 || res.Program.Rules[0].Weight != want {
				t.Errorf("%q, smoothing %d: rules %v, want one of weight %v", c.line, s, res.Program.Rules, want)
			}
		}
	}
}
