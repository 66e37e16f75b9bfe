package store

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Key space tags: the first byte of every Badger key. See doc.go for the
// layout of each space.
const (
	tagMeta    = 'm' // m<name>                      -> meta value
	tagName    = 'n' // n<name>, n\xff<sha256(name)> -> id (4) (see nameKey)
	tagSym     = 's' // s<id>                        -> name
	tagFwd     = 'F' // F<rel><subj><obj>            -> empty
	tagRev     = 'R' // R<rel><obj><subj>            -> empty
	tagNary    = 'N' // N<rel><arity><a1>...<an>     -> empty (arity != 2)
	tagCount   = 'C' // C<rel><arity>                -> base count (8)
	tagSplit   = 'S' // S<len2><name><gen8><chunk8>  -> up to 1024 s r o triples (12 each)
	tagSplitPt = 'P' // P<name>                      -> gen (8) count (8)
	tagDerived = 'D' // D<gen8><rel><arity><args>    -> confidence + provenance
	tagDCount  = 'E' // E<gen8><rel><arity>          -> derived count (8)
	tagDRule   = 'Q' // Q<gen8><id4>                 -> provenance rule of derived generation gen
	tagUndo    = 'U' // U<gen8><seq8>                -> keys written by a pending load or retraction
	tagRecord  = 'W' // W<id8><seq4>                 -> part of the record of material id
	tagLog     = 'L' // L<id8><rel><arity><args>     -> change log entry of material id (logAdded, logRemoved)
)

// Meta keys.
var (
	metaFormat  = []byte("mformat")  // uint32 format version
	metaGen     = []byte("mgen")     // uint64 last committed load generation
	metaPending = []byte("mpending") // pending load record (see pendingRecord)
	metaNSym    = []byte("mnsym")    // uint32 committed dictionary size
	metaDerived = []byte("mderived") // uint64 visible derived generation
	metaDNext   = []byte("mdnext")   // uint64 last derived generation allocated
	metaMat     = []byte("mmat")     // the record and change log (see matState)
	metaReclaim = []byte("mreclaim") // set and dropped to flush the memtable (reclaim, Settle)
	metaRules   = []byte("mrules")   // gen (8) table (8): the rule table of derived generation gen, when not Q<gen> (badger_rules.go)
	metaLayer   = []byte("mlayer")   // gen (8) entries (8): the layer over the visible derived generation (badger_layer.go)
)

// formatVersion is the newest on-disk format this package reads and
// writes. Format 2 added the per-generation rule table of derived facts (Q
// keys, and values that refer to it); format 3 the record of the derived
// facts and the change log of base facts (W and L keys, mmat) and
// retractions (undo logs that put keys back); format 4 a derived
// generation's rule table under an id of its own (mrules), which an update
// that renames many rules writes; format 5 a layer of changes over the
// visible derived generation (mlayer), which an update too large for one
// transaction writes. A store is raised to the format of the
// first write that needs it: formatCreate when created, formatRuleTable at
// the first derived write, formatMaterial at the first record or
// retraction, formatRuleTables at the first switch of a rule table, so a
// store that never used a later feature stays readable by older builds.
// Stores of formats 1 to 3 are read as they are.
const (
	formatCreate     = 2
	formatRuleTable  = 2
	formatMaterial   = 3
	formatRuleTables = 4
	formatLayer      = 5
	formatVersion    = formatLayer
)

// maxArity is the largest arity a fact may have (the arity is one key byte).
const maxArity = MaxArity

// errCorrupt reports a key or value that does not decode.
var errCorrupt = errors.New("store: corrupt key or value")

func putID(b []byte, id ID) []byte { return binary.BigEndian.AppendUint32(b, id) }

func getID(b []byte) ID { return binary.BigEndian.Uint32(b) }

// fwdKey is F<rel><s><o>.
func fwdKey(dst []byte, rel, s, o ID) []byte {
	dst = append(dst, tagFwd)
	return putID(putID(putID(dst, rel), s), o)
}

// revKey is R<rel><o><s>.
func revKey(dst []byte, rel, o, s ID) []byte {
	dst = append(dst, tagRev)
	return putID(putID(putID(dst, rel), o), s)
}

// maxKeyName is the longest name the dictionary's index key holds as it
// is; a longer name is indexed by its SHA-256 digest after a 0xff byte,
// which no UTF-8 name starts with.
const maxKeyName = 1 << 14

// nameKey appends the dictionary index key of name to dst: n<name>, or
// n\xff<sha256(name)> for a name longer than maxKeyName bytes. The key is
// written with the name's id and read only to remove the symbols of an
// interrupted load (the dictionary is loaded from the s keys).
func nameKey(dst []byte, name string) []byte {
	dst = append(dst, tagName)
	if len(name) <= maxKeyName {
		return append(dst, name...)
	}
	sum := sha256.Sum256([]byte(name))
	return append(append(dst, 0xff), sum[:]...)
}

// nameKeyLen is the length of name's index key.
func nameKeyLen(name string) int {
	if len(name) <= maxKeyName {
		return 1 + len(name)
	}
	return 2 + sha256.Size
}

// naryKey is N<rel><arity><args...>.
func naryKey(dst []byte, rel ID, args []ID) []byte {
	dst = append(dst, tagNary)
	dst = putID(dst, rel)
	dst = append(dst, byte(len(args)))
	for _, a := range args {
		dst = putID(dst, a)
	}
	return dst
}

// factKey is the primary key of a base fact: F for binary facts, N otherwise.
func factKey(dst []byte, f Fact) []byte {
	if len(f.Args) == 2 {
		return fwdKey(dst, f.Rel, f.Args[0], f.Args[1])
	}
	return naryKey(dst, f.Rel, f.Args)
}

// factKeyLen is the length of the factKey of f.
func factKeyLen(f Fact) int {
	if len(f.Args) == 2 {
		return 13
	}
	return 6 + 4*len(f.Args)
}

// decodeFactKey decodes an F, R or N key into a fact (subject first).
func decodeFactKey(k []byte) (Fact, error) {
	if len(k) < 1 {
		return Fact{}, errCorrupt
	}
	switch k[0] {
	case tagFwd, tagRev:
		if len(k) != 13 {
			return Fact{}, errCorrupt
		}
		a, b := getID(k[5:]), getID(k[9:])
		if k[0] == tagRev {
			a, b = b, a
		}
		return Fact{Rel: getID(k[1:]), Args: []ID{a, b}}, nil
	case tagNary:
		if len(k) < 6 {
			return Fact{}, errCorrupt
		}
		n := int(k[5])
		if len(k) != 6+4*n || n == 2 {
			return Fact{}, errCorrupt
		}
		return Fact{Rel: getID(k[1:]), Args: decodeArgs(k[6:], n)}, nil
	}
	return Fact{}, errCorrupt
}

func decodeArgs(b []byte, n int) []ID {
	if n == 0 {
		return nil
	}
	args := make([]ID, n)
	for i := range args {
		args[i] = getID(b[4*i:])
	}
	return args
}

// derivedKey is D<gen><rel><arity><args...>.
func derivedKey(dst []byte, gen uint64, f Fact) []byte { return genFactKey(dst, tagDerived, gen, f) }

// derivedPrefix is D<gen>, the key prefix of derived generation gen's facts.
func derivedPrefix(gen uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tagDerived}, gen)
}

// logKey is L<id><rel><arity><args...>.
func logKey(dst []byte, id uint64, f Fact) []byte { return genFactKey(dst, tagLog, id, f) }

// genFactKey is <tag><gen><rel><arity><args...>: the keys of a fact under
// a generation sort by relation, arity, then arguments.
func genFactKey(dst []byte, tag byte, gen uint64, f Fact) []byte {
	dst = append(dst, tag)
	dst = binary.BigEndian.AppendUint64(dst, gen)
	return appendFactSuffix(dst, f)
}

// appendFactSuffix appends <rel><arity><args...>, the part of a D or L
// key after the generation.
func appendFactSuffix(dst []byte, f Fact) []byte {
	dst = putID(dst, f.Rel)
	dst = append(dst, byte(len(f.Args)))
	for _, a := range f.Args {
		dst = putID(dst, a)
	}
	return dst
}

// decodeDerivedKey returns the generation and the fact of a D key.
func decodeDerivedKey(k []byte) (uint64, Fact, error) { return decodeGenFactKey(k, tagDerived) }

// decodeLogKey returns the material id and the fact of an L key.
func decodeLogKey(k []byte) (uint64, Fact, error) { return decodeGenFactKey(k, tagLog) }

// decodeGenFactKey decodes a key made by genFactKey with tag.
func decodeGenFactKey(k []byte, tag byte) (uint64, Fact, error) {
	if len(k) < 9 || k[0] != tag {
		return 0, Fact{}, errCorrupt
	}
	f, err := decodeFactSuffix(k[9:])
	return binary.BigEndian.Uint64(k[1:]), f, err
}

// decodeFactSuffix decodes what appendFactSuffix appends.
func decodeFactSuffix(b []byte) (Fact, error) {
	if len(b) < 5 {
		return Fact{}, errCorrupt
	}
	n := int(b[4])
	if len(b) != 5+4*n {
		return Fact{}, errCorrupt
	}
	return Fact{Rel: getID(b), Args: decodeArgs(b[5:], n)}, nil
}

// recordKey is W<id><seq>, the seq-th part of the record of material id.
func recordKey(id uint64, seq uint32) []byte {
	return putID(binary.BigEndian.AppendUint64([]byte{tagRecord}, id), seq)
}

// recordPart is the size of the parts a record is cut into: below
// Badger's value threshold, so they live in the tables (which compactions
// reclaim) rather than in the value log (which this store never collects).
const recordPart = 64 << 10

// Change log entry values.
const (
	logRemoved = 0
	logAdded   = 1
)

// matState is the value of metaMat: what the store knows about the derived
// facts it holds. ID names the record (W keys) and the change log (L keys)
// of the visible derived facts; 0 means they have no record and no log is
// kept. Last is the largest id allocated, so a new record never reuses the
// id of leftovers. RecLen is the record's length, Count the number of
// facts in the log; Overflow says the log outgrew its cap and was dropped.
// An absent key reads as the zero state (stores written before format 3).
type matState struct {
	ID, Last, RecLen, Count uint64
	Overflow                bool
}

func (s matState) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, s.ID)
	b = binary.BigEndian.AppendUint64(b, s.Last)
	b = binary.BigEndian.AppendUint64(b, s.RecLen)
	b = binary.BigEndian.AppendUint64(b, s.Count)
	if s.Overflow {
		return append(b, 1)
	}
	return append(b, 0)
}

func decodeMat(b []byte) (matState, error) {
	if len(b) != 33 || b[32] > 1 {
		return matState{}, fmt.Errorf("material state: %w", errCorrupt)
	}
	s := matState{
		ID:       binary.BigEndian.Uint64(b),
		Last:     binary.BigEndian.Uint64(b[8:]),
		RecLen:   binary.BigEndian.Uint64(b[16:]),
		Count:    binary.BigEndian.Uint64(b[24:]),
		Overflow: b[32] == 1,
	}
	if s.ID > s.Last || s.ID == 0 && (s.RecLen != 0 || s.Count != 0 || s.Overflow) || s.Overflow && s.Count != 0 {
		return matState{}, fmt.Errorf("material state: %w", errCorrupt)
	}
	return s, nil
}

// dRuleKey is Q<gen><id>.
func dRuleKey(gen uint64, id uint32) []byte {
	return putID(binary.BigEndian.AppendUint64([]byte{tagDRule}, gen), id)
}

// countKey is C<rel><arity> (base) or E<gen><rel><arity> (derived).
func countKey(rel ID, arity int) []byte {
	return append(putID([]byte{tagCount}, rel), byte(arity))
}

func dcountKey(gen uint64, rel ID, arity int) []byte {
	k := binary.BigEndian.AppendUint64([]byte{tagDCount}, gen)
	return append(putID(k, rel), byte(arity))
}

// splitPrefix is S<len><name><gen>; entries append an 8-byte sequence number.
func splitPrefix(name string, gen uint64) []byte {
	k := []byte{tagSplit}
	k = binary.BigEndian.AppendUint16(k, uint16(len(name)))
	k = append(k, name...)
	return binary.BigEndian.AppendUint64(k, gen)
}

// decodeSplitKey returns the name, generation and sequence number of an S key.
func decodeSplitKey(k []byte) (string, uint64, uint64, error) {
	if len(k) < 3 || k[0] != tagSplit {
		return "", 0, 0, errCorrupt
	}
	n := int(binary.BigEndian.Uint16(k[1:]))
	if len(k) != 3+n+16 {
		return "", 0, 0, errCorrupt
	}
	return string(k[3 : 3+n]), binary.BigEndian.Uint64(k[3+n:]), binary.BigEndian.Uint64(k[3+n+8:]), nil
}

func decodeTriple(b []byte) (Triple, error) {
	if len(b) != 12 {
		return Triple{}, errCorrupt
	}
	return Triple{S: getID(b), R: getID(b[4:]), O: getID(b[8:])}, nil
}

// refFlag marks, in the confidence word of a derived value, the format 2
// layout: the rule is a uvarint id into the generation's rule table (its
// Q keys) instead of inline bytes. A confidence is never negative, so
// format 1 values never have the sign bit set.
const refFlag = 1 << 31

// encodeDerivedRef encodes a derived value whose rule is entry rule of its
// generation's rule table.
func encodeDerivedRef(dst []byte, conf float32, rule uint32, body []Fact) []byte {
	dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(conf)|refFlag)
	dst = binary.AppendUvarint(dst, uint64(rule))
	return appendBody(dst, body)
}

// appendBody encodes the body facts of a provenance.
func appendBody(dst []byte, body []Fact) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(body)))
	for _, f := range body {
		dst = binary.AppendUvarint(dst, uint64(f.Rel))
		dst = binary.AppendUvarint(dst, uint64(len(f.Args)))
		for _, a := range f.Args {
			dst = binary.AppendUvarint(dst, uint64(a))
		}
	}
	return dst
}

// decodeDerivedValue decodes a value of either layout. For a format 2
// value, ref is the rule's id in the generation's rule table and p.Rule is
// empty; for a format 1 value ref is -1.
func decodeDerivedValue(b []byte) (conf float32, p Provenance, ref int64, err error) {
	ref = -1
	if len(b) < 4 {
		return 0, p, ref, errCorrupt
	}
	bits := binary.BigEndian.Uint32(b)
	conf = math.Float32frombits(bits &^ refFlag)
	b = b[4:]
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	if bits&refFlag != 0 {
		id, ok := uv()
		if !ok || id > math.MaxUint32 {
			return 0, p, ref, errCorrupt
		}
		ref = int64(id)
	} else {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return 0, p, ref, errCorrupt
		}
		p.Rule = string(b[:n])
		b = b[n:]
	}
	nb, ok := uv()
	if !ok || nb > uint64(len(b)) {
		return 0, p, ref, errCorrupt
	}
	if nb > 0 {
		p.Body = make([]Fact, nb)
	}
	for i := range p.Body {
		rel, ok1 := uv()
		na, ok2 := uv()
		if !ok1 || !ok2 || rel > math.MaxUint32 || na > uint64(len(b)) {
			return 0, p, ref, errCorrupt
		}
		p.Body[i].Rel = ID(rel)
		if na > 0 {
			p.Body[i].Args = make([]ID, na)
		}
		for j := range p.Body[i].Args {
			a, ok := uv()
			if !ok || a > math.MaxUint32 {
				return 0, p, ref, errCorrupt
			}
			p.Body[i].Args[j] = ID(a)
		}
	}
	if len(b) != 0 {
		return 0, p, ref, errCorrupt
	}
	return conf, p, ref, nil
}

// pendingRecord is the value of metaPending: the generation of the load in
// flight, the dictionary size before it, and the splits it writes.
type pendingRecord struct {
	Gen    uint64
	NSym   uint32
	Splits []string
}

func (r pendingRecord) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, r.Gen)
	b = binary.BigEndian.AppendUint32(b, r.NSym)
	b = binary.AppendUvarint(b, uint64(len(r.Splits)))
	for _, s := range r.Splits {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func decodePending(b []byte) (pendingRecord, error) {
	var r pendingRecord
	if len(b) < 12 {
		return r, fmt.Errorf("pending record: %w", errCorrupt)
	}
	r.Gen = binary.BigEndian.Uint64(b)
	r.NSym = binary.BigEndian.Uint32(b[8:])
	b = b[12:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return r, fmt.Errorf("pending record: %w", errCorrupt)
	}
	b = b[k:]
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b[k:])) {
			return r, fmt.Errorf("pending record: %w", errCorrupt)
		}
		r.Splits = append(r.Splits, string(b[k:k+int(l)]))
		b = b[k+int(l):]
	}
	return r, nil
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func getU64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, errCorrupt
	}
	return binary.BigEndian.Uint64(b), nil
}

// undoChunk is the size an undo log entry (a U key's value) grows to
// before the next one starts.
const undoChunk = 64 << 10

// Undo log entries. The value of a U key is a sequence of entries, each
// either a key to delete (and, for an F key, its R key too), written as
// one length byte (1 to 255) and the key, or an escaped entry: a zero
// byte, an operation (undoDelete or undoSet), the uvarint key length and
// the key, and for undoSet the uvarint value length and the value. Keys
// longer than 255 bytes (facts of arity 63 and up) are escaped deletions;
// until format 3 they were written with their length cut to one byte and
// did not roll back.
const (
	undoDelete = 0
	undoSet    = 1
)

// appendUndoDelete appends the entry that deletes key.
func appendUndoDelete(dst, key []byte) []byte {
	if len(key) <= 255 {
		dst = append(dst, byte(len(key)))
		return append(dst, key...)
	}
	dst = append(dst, 0, undoDelete)
	dst = binary.AppendUvarint(dst, uint64(len(key)))
	return append(dst, key...)
}

// appendUndoSet appends the entry that sets key to val (and, for an F
// key, its R key to the empty value).
func appendUndoSet(dst, key, val []byte) []byte {
	dst = append(dst, 0, undoSet)
	dst = binary.AppendUvarint(dst, uint64(len(key)))
	dst = append(dst, key...)
	dst = binary.AppendUvarint(dst, uint64(len(val)))
	return append(dst, val...)
}

// nextUndo decodes the first entry of an undo log value: its operation,
// key and value, and the rest of the log value.
func nextUndo(v []byte) (op byte, key, val, rest []byte, err error) {
	bad := fmt.Errorf("undo log: %w", errCorrupt)
	if len(v) == 0 {
		return 0, nil, nil, nil, bad
	}
	if n := int(v[0]); n > 0 {
		if len(v) < 1+n {
			return 0, nil, nil, nil, bad
		}
		return undoDelete, v[1 : 1+n], nil, v[1+n:], nil
	}
	if len(v) < 2 || v[1] > undoSet {
		return 0, nil, nil, nil, bad
	}
	op, v = v[1], v[2:]
	field := func() ([]byte, bool) {
		n, k := binary.Uvarint(v)
		if k <= 0 || n > uint64(len(v)-k) {
			return nil, false
		}
		f := v[k : k+int(n)]
		v = v[k+int(n):]
		return f, true
	}
	key, ok := field()
	if !ok || len(key) == 0 {
		return 0, nil, nil, nil, bad
	}
	if op == undoSet {
		if val, ok = field(); !ok {
			return 0, nil, nil, nil, bad
		}
	}
	return op, key, val, v, nil
}
