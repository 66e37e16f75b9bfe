package sysmem

import "testing"

func TestParseStatmShared(t *testing.T) {
	for _, c := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"331 212 107 1 0 98 0\n", 107 * 4096, true},
		{"331 212", 0, false},
		{"331 212 x 1", 0, false},
		{"", 0, false},
	} {
		n, ok := ParseStatmShared(c.text, 4096)
		if n != c.want || ok != c.ok {
			t.Errorf("ParseStatmShared(%q) = %d, %v; want %d, %v", c.text, n, ok, c.want, c.ok)
		}
	}
}
