package sysmem

import (
	"runtime/debug"
	"testing"
)

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

// TestSoften: a cap sets the soft limit to nine tenths of it until
// restored; no cap changes nothing.
func TestSoften(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	restore := Limit{Bytes: 10 << 30}.Soften()
	if got := debug.SetMemoryLimit(-1); got != 9<<30 {
		t.Errorf("soft limit under a 10 GiB cap: %d, want %d", got, int64(9<<30))
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("restored: %d, want %d", got, prev)
	}
	Limit{}.Soften()()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("no cap changed the limit to %d (was %d)", got, prev)
	}
}

// TestCollectOften: GOGC is set until restored, unless the environment
// sets it.
func TestCollectOften(t *testing.T) {
	t.Setenv("GOGC", "")
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	restore := CollectOften(InferGC)
	if got := debug.SetGCPercent(InferGC); got != InferGC {
		t.Errorf("GOGC under CollectOften: %d, want %d", got, InferGC)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("restored: %d, want 100", got)
	}
	t.Setenv("GOGC", "200")
	restore = CollectOften(InferGC)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC in the environment, CollectOften changed it to %d", got)
	}
	restore()
}
