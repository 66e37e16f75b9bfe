package eval

import (
	"cmp"
	"github.com/drumql/drumql/internal/pkgerr"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// Symtab maps names to symbol ids: the store's ids, and local ids beyond the
// store's range for program constants the store does not know. Local ids
// are never written to the store except by Infer, which interns the ones
// its derived facts use. Safe for concurrent use.
type Symtab struct {
	st     store.Store
	NStore uint32

	mu     sync.Mutex
	local  map[string]uint32
	lnames []string
	names  map[uint32]string // cache of store names
	cache  map[string]uint32 // ids of computed names (computed)

	// kinds caches, in 2 bits per store symbol, whether its name is
	// written as a number (bit 0: known, bit 1: a number): every
	// comparison asks it of both operands (mined rules end in A != B),
	// and reading it needs neither the lock nor the names.
	kinds     []atomic.Uint32
	kindsOnce sync.Once
	// values holds the value of each store symbol whose kind says it is a
	// number: graphs whose entities are named by numbers (WN18RR's synset
	// offsets) compare numbers in every A != B.
	values []atomic.Uint64 // float64 bits

	// numbers holds the store symbols whose names are numbers but not
	// plain integers (plainInteger), by value (numberSymbols), built on
	// first use: a plain integer is found by its name.
	numbers     map[float64][]uint32
	numbersOnce sync.Once
	numbersErr  error
	// lnumbers holds the local symbols whose names are numbers, by value,
	// kept as they are assigned (under mu).
	lnumbers map[float64][]uint32
	// numberGen counts the changes that may add a symbol equal to a number
	// constant: a local symbol whose name is a number, and Grow. A plan
	// that looks a number constant up by its id (soleNumber) is valid
	// while it is unchanged.
	numberGen atomic.Uint64
}

// numberSymbols returns every symbol, of the store or local, whose name is
// a number equal to f (7, 007, 7.0 and 70e-1 for 7). The first call reads
// every name of the store once.
func (s *Symtab) numberSymbols(f float64) ([]uint32, error) {
	s.numbersOnce.Do(func() {
		s.numbers = map[float64][]uint32{}
		for id := range s.NStore {
			n, err := s.st.Name(id)
			if err != nil {
				s.numbersErr = pkgerr.Newf("reasoner: symbols: %w", err)
				return
			}
			if plainInteger(n) {
				continue
			}
			if g, ok := NumberValue(n); ok {
				s.numbers[g] = append(s.numbers[g], id)
			}
		}
	})
	if s.numbersErr != nil {
		return nil, s.numbersErr
	}
	ids := slices.Clone(s.numbers[f])
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		// the one plain name of f
		id, ok, err := s.st.Lookup(strconv.FormatInt(int64(f), 10))
		if err != nil {
			return nil, pkgerr.Newf("reasoner: symbols: %w", err)
		}
		if ok && id < s.NStore {
			ids = append(ids, id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(ids, s.lnumbers[f]...), nil
}

// plainInteger reports whether name is an integer of at most 15 digits
// written as datalog.CanonicalNumber writes it (0, 7, -12; not 007, -0,
// 7.0): the one name of its value among such names, since every integer
// of at most 15 digits is a distinct float64, and no name of more digits
// has such a value.
func plainInteger(name string) bool {
	d := name
	if d != "" && d[0] == '-' {
		d = d[1:]
	}
	if d == "" || len(d) > 15 || d[0] == '0' && len(name) > 1 {
		return false
	}
	for i := range len(d) {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// soleNumber reports whether c, the symbol of a number constant of value
// f, is the only symbol equal to it as a number: then the tuples that
// match the constant are those holding c, which an index finds by c. gen
// is the generation (numberGen) the answer holds for; a later symbol
// equal to f changes the generation first. A store of many symbols is
// read once, on the first call.
func (s *Symtab) soleNumber(c uint32, f float64) (gen uint64, ok bool) {
	gen = s.numberGen.Load()
	ids, err := s.numberSymbols(f)
	if err != nil {
		return gen, false
	}
	for _, id := range ids {
		if id != c {
			return gen, false
		}
	}
	return gen, true
}

// addLocal assigns the next local id to name (s.mu held).
func (s *Symtab) addLocal(name string) uint32 {
	id := LocalBase + uint32(len(s.lnames))
	s.local[name] = id
	s.lnames = append(s.lnames, name)
	if f, ok := NumberValue(name); ok {
		if s.lnumbers == nil {
			s.lnumbers = map[float64][]uint32{}
		}
		s.lnumbers[f] = append(s.lnumbers[f], id)
		s.numberGen.Add(1)
	}
	return id
}

// NewSymtab returns the symbol table of st: its symbols, then local ids
// for the constants it does not know.
func NewSymtab(st store.Store) (*Symtab, error) {
	n, err := st.NumSymbols()
	if err != nil {
		return nil, pkgerr.Newf("reasoner: symbols: %w", err)
	}
	return &Symtab{st: st, NStore: uint32(n), local: map[string]uint32{}, names: map[uint32]string{}}, nil
}

// Id returns the id of name, assigning a local id when the store does not
// know it.
func (s *Symtab) Id(name string) (uint32, error) {
	id, ok, err := s.st.Lookup(name)
	if err != nil {
		return 0, pkgerr.Newf("reasoner: lookup %q: %w", name, err)
	}
	if ok && id < s.NStore {
		return id, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.local[name]; ok {
		return id, nil
	}
	return s.addLocal(strings.Clone(name)), nil // not the bytes of a program's text
}

// computed returns the id of a name an expression computed, assigning a
// local id when the store does not know it; the store's ids are cached (an
// expression computes the same few values many times, and new values are
// local ids, found in one map).
func (s *Symtab) computed(name string) (uint32, error) {
	s.mu.Lock()
	if id, ok := s.cache[name]; ok {
		s.mu.Unlock()
		return id, nil
	}
	if id, ok := s.local[name]; ok {
		s.mu.Unlock()
		return id, nil
	}
	s.mu.Unlock()
	id, ok, err := s.st.Lookup(name)
	if err != nil {
		return 0, pkgerr.Newf("reasoner: lookup %q: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok && id < s.NStore {
		if s.cache == nil {
			s.cache = map[string]uint32{}
		}
		if len(s.cache) < 1<<20 {
			s.cache[name] = id
		}
		return id, nil
	}
	if id, ok := s.local[name]; ok {
		return id, nil
	}
	return s.addLocal(name), nil
}

// Lookup returns the id of name without assigning one.
func (s *Symtab) Lookup(name string) (uint32, bool) {
	id, ok, err := s.st.Lookup(name)
	if err == nil && ok && id < s.NStore {
		return id, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok = s.local[name]
	return id, ok
}

// IsLocal says whether id is a local id, not one of the store's.
func (s *Symtab) IsLocal(id uint32) bool { return id >= LocalBase }

// LocalBase is the first local id: local ids stay apart from the store's,
// which grow when facts are loaded while a materialisation lives (grow). It
// stays below 1<<31, as code that keeps ids in int32 reads negative ones as
// none.
const LocalBase = 1 << 30

// Grow takes in the symbols the store interned since the table was made
// (n in all). It reports false when that cannot be done in place: a local
// name is now a store symbol (tuples would hold both ids for it), or a new
// symbol is a number while number constants are in use (their relations
// list the symbols equal to them). Not safe for concurrent use.
func (s *Symtab) Grow(n int, numbers bool) (bool, error) {
	if uint32(n) == s.NStore {
		return true, nil
	}
	for _, name := range s.lnames {
		if _, ok, err := s.st.Lookup(name); err != nil {
			return false, pkgerr.Newf("reasoner: symbols: %w", err)
		} else if ok {
			return false, nil
		}
	}
	if numbers {
		for id := s.NStore; id < uint32(n); id++ {
			name, err := s.st.Name(id)
			if err != nil {
				return false, pkgerr.Newf("reasoner: symbols: %w", err)
			}
			if _, ok := NumberValue(name); ok {
				return false, nil
			}
		}
	}
	s.NStore = uint32(n)
	s.numberGen.Add(1)
	s.kindsOnce, s.kinds, s.values = sync.Once{}, nil, nil
	s.numbersOnce, s.numbers, s.numbersErr = sync.Once{}, nil, nil
	return true, nil
}

// Name returns the name of id.
func (s *Symtab) Name(id uint32) (string, error) {
	s.mu.Lock()
	if id >= LocalBase {
		defer s.mu.Unlock()
		k := int(id - LocalBase)
		if k >= len(s.lnames) {
			return "", pkgerr.Newf("reasoner: name of %d: %w", id, store.ErrUnknownID)
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
		return "", pkgerr.Newf("reasoner: name of %d: %w", id, err)
	}
	s.mu.Lock()
	s.names[id] = n
	s.mu.Unlock()
	return n, nil
}

// mustName is name for ids the evaluator produced itself; a failure there is
// reported as the name "?id".
func (s *Symtab) mustName(id uint32) string {
	n, err := s.Name(id)
	if err != nil {
		return "?" + strconv.FormatUint(uint64(id), 10)
	}
	return n
}

// NumberValue returns the value of s when s is written as a number of the
// dialect (-?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)?, in the range of float64).
func NumberValue(s string) (float64, bool) {
	if s == "" || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return 0, false // most names: no parse
	}
	if _, ok := datalog.CanonicalNumber(s); !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// Number returns the value of symbol id when its name is written as a
// number.
func (s *Symtab) Number(id uint32) (float64, bool) {
	if id >= s.NStore {
		// a local symbol (or, past the table, none)
		return NumberValue(s.mustName(id))
	}
	s.kindsOnce.Do(func() {
		s.kinds = make([]atomic.Uint32, (s.NStore+15)/16)
		s.values = make([]atomic.Uint64, s.NStore)
	})
	word, shift := &s.kinds[id/16], id%16*2
	switch word.Load() >> shift & 3 {
	case 1:
		return 0, false // known not to be a number: most names
	case 3:
		// Written before the kind was published (the atomic Or and Load
		// order the two).
		return math.Float64frombits(s.values[id].Load()), true
	}
	f, ok := NumberValue(s.mustName(id))
	k := uint32(1)
	if ok {
		s.values[id].Store(math.Float64bits(f))
		k = 3
	}
	word.Or(k << shift)
	return f, ok
}

// EqualsNumber reports whether symbol id equals the number constant with
// symbol c and value f: compare(id as a variable's value, c as a number
// constant) == 0.
func (s *Symtab) EqualsNumber(id, c uint32, f float64) bool {
	if id == c {
		return true
	}
	g, ok := s.Number(id)
	return ok && g == f
}

// compare orders two comparison operands, each a symbol and, when it is a
// number (na, nb), its value (fa, fb): numerically when both are numbers,
// otherwise by name (byte order). The same symbol is equal to itself.
func (s *Symtab) compare(a uint32, fa float64, na bool, b uint32, fb float64, nb bool) int {
	if a == b {
		return 0
	}
	if na && nb {
		return cmp.Compare(fa, fb)
	}
	return strings.Compare(s.mustName(a), s.mustName(b))
}
