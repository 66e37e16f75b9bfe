package server

import (
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/internal/sysmem"
)

// TestLimitsCheck: the flags' errors name the flag; --max-memory defaults
// to DefaultMemoryShare of the available memory, "off" is no cap.
func TestLimitsCheck(t *testing.T) {
	ok := Limits{MaxFacts: 10, QueryTimeout: time.Second, MaxBody: "1M"}
	body, mem, err := ok.Check()
	if err != nil || body != 1<<20 {
		t.Fatalf("Check = %d, %v", body, err)
	}
	if avail, known := sysmem.Available(); known {
		if want := int64(float64(avail.Bytes) * DefaultMemoryShare); mem.Bytes != want {
			t.Errorf("default memory cap %d, want %d (3/4 of %d)", mem.Bytes, want, avail.Bytes)
		}
	}
	off := ok
	off.MaxMemory = "off"
	if _, mem, err := off.Check(); err != nil || mem.Bytes != 0 {
		t.Errorf("off: %d, %v", mem.Bytes, err)
	}
	set := ok
	set.MaxMemory = "2G"
	if _, mem, err := set.Check(); err != nil || mem.Bytes != 2<<30 {
		t.Errorf("2G: %d, %v", mem.Bytes, err)
	}
	for flag, l := range map[string]Limits{
		"--max-facts":     {MaxFacts: 0, QueryTimeout: time.Second, MaxBody: "1M"},
		"--query-timeout": {MaxFacts: 1, MaxBody: "1M"},
		"--max-body":      {MaxFacts: 1, QueryTimeout: time.Second, MaxBody: "0"},
		"--max-memory":    {MaxFacts: 1, QueryTimeout: time.Second, MaxBody: "1M", MaxMemory: "lots"},
	} {
		if _, _, err := l.Check(); err == nil || !strings.HasPrefix(err.Error(), flag) {
			t.Errorf("%s: %v", flag, err)
		}
	}
}
