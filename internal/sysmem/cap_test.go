package sysmem

import "testing"

func TestParseCap(t *testing.T) {
	for _, tt := range []struct {
		s     string
		want  Limit
		known bool
	}{
		{"off", Limit{}, false},
		{"8G", Limit{Bytes: 8 << 30, Source: "--max-memory"}, true},
		{"0", Limit{Bytes: 0, Source: "--max-memory"}, true},
	} {
		lim, known, err := ParseCap(tt.s, "--max-memory")
		if err != nil || lim != tt.want || known != tt.known {
			t.Errorf("ParseCap(%q) = %+v, %v, %v; want %+v, %v", tt.s, lim, known, err, tt.want, tt.known)
		}
	}
	if _, known, err := ParseCap("lots", "--max-memory"); err == nil || known {
		t.Errorf("ParseCap(lots): known %v, error %v; want an error", known, err)
	}
	// The available memory changes from one reading to the next: compare
	// where it comes from.
	avail, ok := Available()
	if lim, known, err := ParseCap("", "--max-memory"); err != nil || lim.Source != avail.Source || known != ok || (known && lim.Bytes <= 0) {
		t.Errorf("ParseCap(\"\") = %+v, %v, %v; want the available memory %+v, %v", lim, known, err, avail, ok)
	}
}
