package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/drumql/drumql/internal/sysmem"
)

// Limits are drumql serve's limit flags as typed.
type Limits struct {
	MaxFacts     int
	QueryTimeout time.Duration
	// MaxBody is a size ("1M").
	MaxBody string
	// MaxMemory is a size ("8G"), "off", or "" for DefaultMemoryShare of
	// the memory available at start (the smaller of MemAvailable and the
	// cgroup limit).
	MaxMemory string
}

// DefaultMemoryShare is the part of the available memory a server takes
// as its --max-memory when none is given: the rest is the store's files
// mapped into memory and what the machine runs beside it.
const DefaultMemoryShare = 0.75

// Check validates the limits and returns the body and memory caps in
// bytes (memory 0: no cap) and the memory cap as sysmem describes it.
// Its error names the flag.
func (l Limits) Check() (maxBody int64, mem sysmem.Limit, err error) {
	if l.MaxFacts <= 0 {
		return 0, mem, fmt.Errorf("--max-facts %d: must be more than 0", l.MaxFacts)
	}
	if l.QueryTimeout <= 0 {
		return 0, mem, fmt.Errorf("--query-timeout %s: must be more than 0", l.QueryTimeout)
	}
	maxBody, err = sysmem.ParseSize(l.MaxBody)
	if err == nil && maxBody <= 0 {
		err = errors.New("must be more than 0")
	}
	if err != nil {
		return 0, mem, fmt.Errorf("--max-body %s: %w", l.MaxBody, err)
	}
	mem, _, err = sysmem.ParseCap(l.MaxMemory, "--max-memory")
	if err == nil && l.MaxMemory != "" && l.MaxMemory != "off" && mem.Bytes <= 0 {
		err = errors.New("must be more than 0 (or off)")
	}
	if err != nil {
		return 0, mem, fmt.Errorf("--max-memory %s: %w", l.MaxMemory, err)
	}
	if l.MaxMemory == "" && mem.Bytes > 0 {
		mem.Bytes = int64(float64(mem.Bytes) * DefaultMemoryShare)
		mem.Source = fmt.Sprintf("%g of %s", DefaultMemoryShare, mem.Source)
	}
	return maxBody, mem, nil
}
