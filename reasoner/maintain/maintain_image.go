package maintain

import (
	"context"
	"errors"
	"fmt"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// The materialisation image.
//
// Resume rebuilds a materialisation from the store's derived facts: it
// decodes every fact and its proof, inserts each in its relation's hash
// index and computes its confidence again, which is most of an update
// through the CLI (4.0M facts: seconds, where the update itself takes
// milliseconds). An image (store.WriteImage) keeps the relations' columns
// (tuples, confidences, provenance) and the provenance pool as flat arrays
// that are read back into the evaluator's slices as they are, no decoding
// per fact, and each relation's unique index as the slot of each tuple,
// whose hash is computed again (no probing, no growing: the slots' own
// 8-byte words, at the index's load of 1/4 to 1/2, would make the image
// larger than the store). Confidences that are all 0 or 1 (a program
// without weights) are kept as bits. Secondary indexes are not kept (the
// update builds those it uses, as after Resume). It is written after an
// update (Catchup), and after an evaluation from scratch (Infer: without
// the unique indexes' slots, which that evaluation dropped before its
// write; the reader builds them at once), named after the derived facts
// the write stored, and read instead of them by the next update when it
// is still of them.
//
// The state it keeps is what Resume would build, numbered as Resume
// numbers it: the provenance records name the program's rules by their
// position (the rederive twins of maintain.go by their rule's) and body
// facts by the image's relation numbers; the records are written in
// tuple order, the live ones only (the pool of a long-maintained
// materialisation, or of an evaluation, also holds superseded ones).
// What an image cannot hold
// (local symbols, which the store numbers when it writes; relations with
// choice domains; a proof by a rule the program no longer has) makes
// Catchup and Infer write none.

// errNoImage is the error of a materialisation whose state an image does
// not hold.
var errNoImage = errors.New("the materialisation holds what an image cannot")

// errImageMismatch is the error of an image that does not fit the
// program of the store's record: it is stale.
var errImageMismatch = errors.New("the image does not fit the recorded program")

// imageRel is a relation an image holds.
type imageRel struct {
	r    *eval.Relation
	cols eval.Columns
}

// imageSrc is the state an image writes, read from the evaluator as it is
// written: the relations, and the live tuples' records, numbered for the
// image, laid out in chunks as eval.ProvPool.Add lays them out, in tuple
// order (the pool of an evaluation also holds superseded records). No
// copy of the pool or of the provenance columns is made.
type imageSrc struct {
	e      *eval.Evaluator
	rels   []imageRel
	pos    []int32 // compiled rule -> program position (-1: none)
	num    []int32 // relation -> its number in the image (-1: none)
	like   func(ci, at int) bool
	chunks []int // the length of each of the pool's chunks (writeImage)
	buf    []uint32
	out    []int32
}

// imageState returns the state an image of m holds.
func (m *Materialisation) imageState() (*imageSrc, error) {
	e := m.e
	pos := make([]int32, len(e.Rules)) // compiled rule -> program position
	for i := range pos {
		pos[i] = -1
	}
	for i, ci := range m.ruleOf {
		pos[ci] = int32(i)
	}
	for ci := range pos {
		if pos[ci] < 0 && m.main[ci] != ci {
			pos[ci] = pos[m.main[ci]]
		}
	}
	// A twin's records are its rule's: they must have the same shape.
	like := func(ci, at int) bool {
		main, rule := e.Rules[m.ruleOf[at]], e.Rules[ci]
		return main.RefWords() == rule.RefWords() && main.Nprov == rule.Nprov
	}
	return imageStateOf(e, pos, like)
}

// imageStateOf is imageState for the evaluator e whose compiled rule ci is
// rule pos[ci] of the program (-1: none of it), its records then read as
// that rule's when like(ci, pos[ci]). It checks the relations; the
// records are checked as they are written (writeProv).
func imageStateOf(e *eval.Evaluator, pos []int32, like func(ci, at int) bool) (*imageSrc, error) {
	s := &imageSrc{e: e, pos: pos, num: make([]int32, len(e.Rels)), like: like}
	for ri, r := range e.Rels {
		s.num[ri] = -1
		if r.Internal {
			continue
		}
		if r.Lean || r.HasChoice() {
			return nil, fmt.Errorf("%w: relation %s keeps no proofs or a choice domain", errNoImage, r.Display)
		}
		if e.Syms.Locals() > 0 && holdsLocal(r) {
			// Local ids are the process's: the store numbers the names
			// as it writes them.
			return nil, fmt.Errorf("%w: relation %s holds symbols the store did not have", errNoImage, r.Display)
		}
		s.num[ri] = int32(len(s.rels))
		s.rels = append(s.rels, imageRel{r: r, cols: r.Columns()})
	}
	return s, nil
}

// walk calls fn with each tuple of the image's relation i, in order: its
// provenance code when it has no record (rec nil), else its record (the
// rule's program position, then its words), numbered for the image, in a
// buffer the next call reuses.
func (s *imageSrc) walk(i int, fn func(code int32, rec []uint32)) error {
	e, r := s.e, s.rels[i].r
	for t := range int32(r.N) {
		p := r.ProvAt(t)
		switch {
		case p < 0:
			fn(p, nil)
			continue
		case r.ConfAt(t) == 0:
			fn(eval.ProvDeleted, nil)
			continue
		}
		ci := e.Pool.Rule(p)
		if int(ci) >= len(s.pos) || s.pos[ci] < 0 {
			return fmt.Errorf("%w: a proof by a rule the program lacks", errNoImage)
		}
		at, rule := s.pos[ci], e.Rules[ci]
		if !s.like(int(ci), int(at)) {
			return fmt.Errorf("%w: a twin's proof unlike its rule's", errNoImage)
		}
		s.buf = append(append(s.buf[:0], uint32(at)), e.Pool.Words(p, rule.RefWords())...)
		for k := range rule.Nprov {
			if rr := s.buf[1+2*k]; rr != eval.NoMatch {
				if s.num[rr] < 0 {
					return fmt.Errorf("%w: a proof uses an internal relation", errNoImage)
				}
				s.buf[1+2*k] = uint32(s.num[rr])
			}
		}
		fn(0, s.buf)
	}
	return nil
}

// poolLayout places records in chunks as eval.ProvPool.Add does.
type poolLayout struct {
	lens    []int
	lastCap int
}

// add places a record of n words and returns its position.
func (l *poolLayout) add(n int) int32 {
	k := len(l.lens) - 1
	if k < 0 || l.lens[k]+n > l.lastCap {
		l.lens = append(l.lens, 0)
		l.lastCap = max(1<<eval.ProvChunkBits, n)
		k++
	}
	p := int32(k<<eval.ProvChunkBits | l.lens[k])
	l.lens[k] += n
	return p
}

// writeProv writes the provenance column of the image's relation i, its
// records placed by l; a record the image cannot hold fails w (an error
// wrapping errNoImage).
func (s *imageSrc) writeProv(w *store.ImageWriter, i int, l *poolLayout) {
	s.out = s.out[:0]
	err := s.walk(i, func(code int32, rec []uint32) {
		if rec != nil {
			code = l.add(len(rec))
		}
		if s.out = append(s.out, code); len(s.out) == 1<<16 {
			w.I32s(s.out)
			s.out = s.out[:0]
		}
	})
	if err != nil {
		w.Fail(pkgerr.Newf("reasoner: write image: %w", err))
	}
	w.I32s(s.out)
}

// writePool writes the pool: its number of chunks, then each chunk's
// length and records.
func (s *imageSrc) writePool(w *store.ImageWriter) {
	w.U64(uint64(len(s.chunks)))
	var l poolLayout
	for i := range s.rels {
		s.walk(i, func(_ int32, rec []uint32) {
			if rec == nil {
				return
			}
			if p := l.add(len(rec)); p&(1<<eval.ProvChunkBits-1) == 0 {
				w.U64(uint64(s.chunks[p>>eval.ProvChunkBits]))
			}
			w.U32s(rec)
		})
	}
}

// holdsLocal reports whether a tuple of r, live or removed, holds a local
// symbol id.
func holdsLocal(r *eval.Relation) bool {
	for _, c := range r.Columns().Tuples {
		for _, a := range c {
			if a >= eval.LocalBase {
				return true
			}
		}
	}
	return false
}

// WriteImage writes m's image to the store's directory, named after the
// derived facts it stores now (which must be m's: after Write or
// WriteUpdate). fs is the file system to write to (nil: the operating
// system's). It returns an error wrapping errNoImage, and writes nothing,
// when m holds what an image cannot.
func (m *Materialisation) WriteImage(db *store.DB, fs store.ImageFS) error {
	return writeImage(db, fs, sizeOf(m.prog), m.e.Derived, m.imageState)
}

// programSize is the number of rules and facts of a program: what an
// image records of it (the store's record holds the program itself).
type programSize struct{ rules, facts int }

// sizeOf is the size of prog.
func sizeOf(prog *datalog.Program) programSize {
	return programSize{rules: len(prog.Rules), facts: len(prog.Facts)}
}

// writeImage writes the image of the materialisation of a program of the
// given size, derived facts long, whose relations and pool state returns,
// to db's directory (see WriteImage).
func writeImage(db *store.DB, fs store.ImageFS, prog programSize, derived int, state func() (*imageSrc, error)) error {
	ms, err := db.Materialised()
	if err != nil {
		return err
	}
	if ms.Program == nil || len(ms.Changes) > 0 || ms.Overflow {
		return fmt.Errorf("reasoner: write image: the store's derived facts are not the materialisation's")
	}
	n, err := db.NumSymbols()
	if err != nil {
		return err
	}
	src, err := state()
	if err != nil {
		return pkgerr.Newf("reasoner: write image: %w", err)
	}
	gen, mat := db.ImageVersion()
	h := store.NewImageHeader(gen, mat, n, ms.Program)
	return store.WriteImage(fs, db.Dir(), h, func(w *store.ImageWriter) {
		w.U64(uint64(prog.rules))
		w.U64(uint64(prog.facts))
		w.U64(uint64(derived))
		w.U64(uint64(len(src.rels)))
		var l poolLayout
		for i := range src.rels {
			if writeRel(w, src, i, &l); w.Err() != nil {
				return // a record the image cannot hold
			}
		}
		src.chunks = l.lens
		src.writePool(w)
	})
}

// writeRel writes the image's relation i of src, its records placed by l.
func writeRel(w *store.ImageWriter, src *imageSrc, i int, l *poolLayout) {
	r, c := src.rels[i].r, &src.rels[i].cols
	w.String(r.Name)
	w.U64(uint64(r.Arity))
	w.U64(uint64(c.N))
	w.U64(uint64(c.Alive))
	weighted := uint64(0)
	if c.Weighted {
		weighted = 1
	}
	w.U64(weighted)
	for k := range c.Tuples {
		w.U32s(c.Tuples[k][:chunkLen(c.N, k)*r.Arity])
	}
	if bits, ok := confBits(c); ok {
		w.U64(confAsBits)
		w.U64s(bits)
	} else {
		w.U64(confAsFloats)
		for k := range c.Conf {
			w.F64s(c.Conf[k][:chunkLen(c.N, k)])
		}
	}
	src.writeProv(w, i, l)
	// The unique index: its size and each tuple's slot (readRel computes
	// the hashes again).
	w.U64(uint64(c.Unique.Count))
	w.U64(uint64(len(c.Unique.Slots)))
	if len(c.Unique.Slots) > 0 {
		w.U32s(r.UniquePositions())
	}
}

// The encodings of a relation's confidences in an image: float64 words,
// or, when every one is 0 or 1 (a program without weights), a bit each.
const (
	confAsFloats = 0
	confAsBits   = 1
)

// confBits returns the confidences of c as bits, when each is 0 or 1.
func confBits(c *eval.Columns) ([]uint64, bool) {
	bits := make([]uint64, (c.N+63)/64)
	for k, col := range c.Conf {
		for j, v := range col[:chunkLen(c.N, k)] {
			i := k*eval.ChunkLen + j
			switch v {
			case 1:
				bits[i/64] |= 1 << (i % 64)
			case 0:
			default:
				return nil, false
			}
		}
	}
	return bits, true
}

// chunkLen is the number of tuples in chunk k of a relation of n tuples.
func chunkLen(n, k int) int {
	return min(eval.ChunkLen, n-k*eval.ChunkLen)
}

// ResumeImage is Resume from the store's image, read through r (whose
// header the caller found current): the materialisation of prog (the
// record's program, threshold min) as the store's derived facts are. It
// returns an error wrapping store.ErrCorruptImage for an image whose bytes
// do not check out and errImageMismatch for one that does not fit prog.
func ResumeImage(ctx context.Context, st store.Store, r *store.ImageReader, prog *datalog.Program, min float64, opt eval.Options) (*Materialisation, error) {
	m, err := resumed(ctx, st, prog, min, opt)
	if err != nil {
		return nil, err
	}
	e := m.e
	e.NoStoreLoad = true
	err = e.Load(m.u)
	e.NoStoreLoad = false
	if err != nil {
		return nil, pkgerr.Newf("reasoner: resume: %w", err)
	}
	if r.U64() != uint64(len(prog.Rules)) || r.U64() != uint64(len(prog.Facts)) || len(e.Rules) != len(prog.Rules) {
		return nil, errImageMismatch
	}
	derived := int(r.U64())
	nrels := r.Count(8)
	rels := make([]int32, nrels) // image relation -> evaluator relation
	cols := make([]eval.Columns, nrels)
	same := true
	for i := range nrels {
		ri, c, err := readRel(r, e)
		if err != nil {
			return nil, err
		}
		rels[i], cols[i] = ri, c
		same = same && ri == int32(i)
	}
	chunks := make([][]uint32, r.Count(8))
	for k := range chunks {
		n := r.Count(4)
		chunks[k] = make([]uint32, n, max(n, 1<<16))
		r.U32s(chunks[k])
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	// From here on the bytes are the ones written.
	for i, c := range cols {
		if ri := rels[i]; ri >= 0 {
			e.Rels[ri].Restore(c)
		}
	}
	have := make([]bool, len(e.Rels))
	for _, ri := range rels {
		if ri >= 0 {
			have[ri] = true
		}
	}
	for ri, rel := range e.Rels {
		if !rel.Internal {
			if !have[ri] {
				return nil, fmt.Errorf("%w: it lacks relation %s", errImageMismatch, rel.Display)
			}
			m.loaded[int32(ri)] = true
		}
	}
	e.Pool = eval.ProvPool{Chunks: chunks}
	if !same {
		if err := renumberPool(e, rels); err != nil {
			return nil, err
		}
	}
	if err := m.indexFacts(); err != nil {
		return nil, pkgerr.Newf("reasoner: resume: %w", err)
	}
	e.Derived = derived
	m.computeActive()
	return m, nil
}

// renumberPool renumbers the body relations of the pool's records from
// the image's numbers to the evaluator's (rels).
func renumberPool(e *eval.Evaluator, rels []int32) error {
	for _, c := range e.Pool.Chunks {
		for off := 0; off < len(c); {
			ci := int(c[off])
			if ci >= len(e.Rules) {
				return errImageMismatch
			}
			rule := e.Rules[ci]
			if off+1+rule.RefWords() > len(c) {
				return errImageMismatch
			}
			for k := range rule.Nprov {
				if rr := c[off+1+2*k]; rr != eval.NoMatch {
					if int(rr) >= len(rels) || rels[rr] < 0 {
						return errImageMismatch
					}
					c[off+1+2*k] = uint32(rels[rr])
				}
			}
			off += 1 + rule.RefWords()
		}
	}
	return nil
}

// readRel reads a relation of an image: its evaluator relation (-1 when e
// has none of its name and arity) and its columns.
func readRel(r *store.ImageReader, e *eval.Evaluator) (int32, eval.Columns, error) {
	var c eval.Columns
	name := r.String()
	arity := r.Count(1)
	c.N = r.Count(max(arity, 1) * 4)
	c.Alive = int(r.U64())
	c.Weighted = r.U64() == 1
	if err := r.Err(); err != nil {
		return 0, c, err
	}
	ri, ok := e.RelIdx[eval.RelKey(name, arity)]
	if !ok || e.Rels[ri].Internal || e.Rels[ri].Arity != arity {
		ri = -1
	}
	chunks := (c.N + eval.ChunkLen - 1) / eval.ChunkLen
	capOf := func(k int) int { // as Relation.Add sizes its chunks
		if k == 0 && c.N <= eval.ChunkLen {
			return c.N
		}
		return eval.ChunkLen
	}
	c.Tuples = make([][]uint32, chunks)
	for k := range chunks {
		c.Tuples[k] = make([]uint32, chunkLen(c.N, k)*arity, capOf(k)*arity)
		r.U32s(c.Tuples[k])
	}
	c.Conf = make([][]float64, chunks)
	kind := r.U64()
	var bits []uint64
	if kind == confAsBits {
		bits = make([]uint64, (c.N+63)/64)
		r.U64s(bits)
	}
	for k := range chunks {
		c.Conf[k] = make([]float64, chunkLen(c.N, k), capOf(k))
		if kind == confAsBits {
			for j := range c.Conf[k] {
				i := k*eval.ChunkLen + j
				c.Conf[k][j] = float64(bits[i/64] >> (i % 64) & 1)
			}
		} else {
			r.F64s(c.Conf[k])
		}
	}
	c.Prov = make([][]int32, chunks)
	for k := range chunks {
		c.Prov[k] = make([]int32, chunkLen(c.N, k), capOf(k))
		r.I32s(c.Prov[k])
	}
	c.Unique.Count = int(r.U64())
	nslots := r.U64()
	if nslots&(nslots-1) != 0 || nslots > uint64(max(64, 8*c.N)) {
		return 0, c, fmt.Errorf("%w: %d slots for %d tuples", store.ErrCorruptImage, nslots, c.N)
	}
	if nslots > 0 {
		c.Unique.Slots = make([]uint64, nslots)
		c.UniquePos = make([]uint32, c.N)
		r.U32s(c.UniquePos)
	}
	return ri, c, r.Err()
}
