package server

import (
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/store"
)

// TestLimitsCheck: the flags' errors name the flag; --max-memory defaults
// to DefaultMemoryShare of the available memory, "off" is no cap.
func TestLimitsCheck(t *testing.T) {
	ok := Limits{MaxFacts: 10, QueryTimeout: time.Second, MaxBody: "1M"}
	c, err := ok.Check()
	if err != nil || c.Body != 1<<20 || c.String != store.MaxNameLen {
		t.Fatalf("Check = %+v, %v", c, err)
	}
	// The available memory changes from one read to the next while other
	// tests run, so the default is checked by its source here and by its
	// arithmetic in defaultShare's case below.
	mem := c.Mem
	if avail, known := sysmem.Available(); known {
		if want := "0.75 of " + avail.Source; mem.Source != want || mem.Bytes <= 0 {
			t.Errorf("default memory cap %+v, want %s, more than 0", mem, want)
		}
	}
	if got := defaultShare(sysmem.Limit{Bytes: 4000, Source: "MemAvailable"}); got.Bytes != 3000 || got.Source != "0.75 of MemAvailable" {
		t.Errorf("defaultShare(4000 MemAvailable) = %+v, want 3000, 0.75 of MemAvailable", got)
	}
	if got := defaultShare(sysmem.Limit{}); got.Bytes != 0 {
		t.Errorf("defaultShare(unknown) = %+v, want no cap", got)
	}
	off := ok
	off.MaxMemory = "off"
	if c, err := off.Check(); err != nil || c.Mem.Bytes != 0 {
		t.Errorf("off: %d, %v", c.Mem.Bytes, err)
	}
	set := ok
	set.MaxMemory = "2G"
	if c, err := set.Check(); err != nil || c.Mem.Bytes != 2<<30 {
		t.Errorf("2G: %d, %v", c.Mem.Bytes, err)
	}
	set.MaxString = "64K"
	if c, err := set.Check(); err != nil || c.String != 64<<10 {
		t.Errorf("--max-string 64K: %d, %v", c.String, err)
	}
	for flag, l := range map[string]Limits{
		"--max-facts":     {MaxFacts: 0, QueryTimeout: time.Second, MaxBody: "1M"},
		"--query-timeout": {MaxFacts: 1, MaxBody: "1M"},
		"--max-body":      {MaxFacts: 1, QueryTimeout: time.Second, MaxBody: "0"},
		"--max-memory":    {MaxFacts: 1, QueryTimeout: time.Second, MaxBody: "1M", MaxMemory: "lots"},
		"--max-string":    {MaxFacts: 1, QueryTimeout: time.Second, MaxBody: "1M", MaxString: "2M"},
	} {
		if _, err := l.Check(); err == nil || !strings.HasPrefix(err.Error(), flag) {
			t.Errorf("%s: %v", flag, err)
		}
	}
}
