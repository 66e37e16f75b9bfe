package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/store"
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
	// MaxString is a size ("1M"), at most store.MaxNameLen; "" means that.
	MaxString string
}

// DefaultMemoryShare is the part of the available memory a server takes
// as its --max-memory when none is given: the rest is the store's files
// mapped into memory and what the machine runs beside it.
const DefaultMemoryShare = 0.75

// Caps are the limits in bytes, as Limits.Check returns them.
type Caps struct {
	Body int64        // the largest request body
	Mem  sysmem.Limit // the memory cap (Bytes 0: none), as sysmem describes it
	// String is the longest string a name or an evaluation may make
	// (Config.MaxString).
	String int
}

// Check validates the limits and returns them in bytes. Its error names
// the flag.
func (l Limits) Check() (c Caps, err error) {
	if l.MaxFacts <= 0 {
		return c, fmt.Errorf("--max-facts %d: must be more than 0", l.MaxFacts)
	}
	if l.QueryTimeout <= 0 {
		return c, fmt.Errorf("--query-timeout %s: must be more than 0", l.QueryTimeout)
	}
	c.Body, err = sysmem.ParseSize(l.MaxBody)
	if err == nil && c.Body <= 0 {
		err = errors.New("must be more than 0")
	}
	if err != nil {
		return c, fmt.Errorf("--max-body %s: %w", l.MaxBody, err)
	}
	c.String = store.MaxNameLen
	if l.MaxString != "" {
		n, err := sysmem.ParseSize(l.MaxString)
		if err == nil && (n <= 0 || n > store.MaxNameLen) {
			err = fmt.Errorf("must be more than 0 and at most %d bytes (1M, the store's longest name)", store.MaxNameLen)
		}
		if err != nil {
			return c, fmt.Errorf("--max-string %s: %w", l.MaxString, err)
		}
		c.String = int(n)
	}
	c.Mem, _, err = sysmem.ParseCap(l.MaxMemory, "--max-memory")
	if err == nil && l.MaxMemory != "" && l.MaxMemory != "off" && c.Mem.Bytes <= 0 {
		err = errors.New("must be more than 0 (or off)")
	}
	if err != nil {
		return c, fmt.Errorf("--max-memory %s: %w", l.MaxMemory, err)
	}
	if l.MaxMemory == "" {
		c.Mem = defaultShare(c.Mem)
	}
	return c, nil
}

// defaultShare is the server's part, DefaultMemoryShare, of the
// available memory lim; a cap of 0 (the memory is not known) stays 0.
func defaultShare(lim sysmem.Limit) sysmem.Limit {
	if lim.Bytes <= 0 {
		return lim
	}
	return sysmem.Limit{
		Bytes:  int64(float64(lim.Bytes) * DefaultMemoryShare),
		Source: fmt.Sprintf("%g of %s", DefaultMemoryShare, lim.Source),
	}
}
