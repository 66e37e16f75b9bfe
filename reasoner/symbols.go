package reasoner

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/drumql/drumql/store"
)

// symtab maps names to symbol ids: the store's ids, and local ids beyond the
// store's range for program constants the store does not know. Local ids
// are never written to the store except by Infer, which interns the ones
// its derived facts use. Safe for concurrent use.
type symtab struct {
	st     store.Store
	nStore uint32

	mu     sync.Mutex
	local  map[string]uint32
	lnames []string
	names  map[uint32]string // cache of store names
}

func newSymtab(st store.Store) (*symtab, error) {
	n, err := st.NumSymbols()
	if err != nil {
		return nil, fmt.Errorf("reasoner: symbols: %w", err)
	}
	return &symtab{st: st, nStore: uint32(n), local: map[string]uint32{}, names: map[uint32]string{}}, nil
}

// id returns the id of name, assigning a local id when the store does not
// know it.
func (s *symtab) id(name string) (uint32, error) {
	id, ok, err := s.st.Lookup(name)
	if err != nil {
		return 0, fmt.Errorf("reasoner: lookup %q: %w", name, err)
	}
	if ok && id < s.nStore {
		return id, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.local[name]; ok {
		return id, nil
	}
	id = s.nStore + uint32(len(s.lnames))
	s.local[name] = id
	s.lnames = append(s.lnames, name)
	return id, nil
}

// lookup returns the id of name without assigning one.
func (s *symtab) lookup(name string) (uint32, bool) {
	id, ok, err := s.st.Lookup(name)
	if err == nil && ok && id < s.nStore {
		return id, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok = s.local[name]
	return id, ok
}

func (s *symtab) isLocal(id uint32) bool { return id >= s.nStore }

// name returns the name of id.
func (s *symtab) name(id uint32) (string, error) {
	s.mu.Lock()
	if id >= s.nStore {
		defer s.mu.Unlock()
		k := int(id - s.nStore)
		if k >= len(s.lnames) {
			return "", fmt.Errorf("reasoner: name of %d: %w", id, store.ErrUnknownID)
		}
		return s.lnames[k], nil
	}
	n, ok := s.names[id]
	s.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := s.st.Name(id)
	if err != nil {
		return "", fmt.Errorf("reasoner: name of %d: %w", id, err)
	}
	s.mu.Lock()
	s.names[id] = n
	s.mu.Unlock()
	return n, nil
}

// mustName is name for ids the evaluator produced itself; a failure there is
// reported as the name "?id".
func (s *symtab) mustName(id uint32) string {
	n, err := s.name(id)
	if err != nil {
		return "?" + strconv.FormatUint(uint64(id), 10)
	}
	return n
}

// number parses a symbol as a number.
func number(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s, " \t_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// compareSyms orders two symbols: numerically when both are numbers, else by
// name.
func (s *symtab) compareSyms(a, b uint32) int {
	if a == b {
		return 0
	}
	na, nb := s.mustName(a), s.mustName(b)
	if fa, ok := number(na); ok {
		if fb, ok := number(nb); ok {
			return cmp.Compare(fa, fb)
		}
	}
	return strings.Compare(na, nb)
}
