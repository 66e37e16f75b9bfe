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
// update (Catchup), named after the derived facts the update stored, and
// read instead of them by the next update when it is still of them.
//
// The state it keeps is what Resume would build, numbered as Resume
// numbers it: the provenance records name the program's rules by their
// position (the rederive twins of maintain.go by their rule's) and body
// facts by the image's relation numbers; the records are copied in
// tuple order, the live ones only (the pool of a long-maintained
// materialisation also holds superseded ones). What an image cannot hold
// (local symbols, which the store numbers when it writes; relations with
// choice domains; a proof by a rule the program no longer has) makes
// Catchup write none.

// errNoImage is the error of a materialisation whose state an image does
// not hold.
var errNoImage = errors.New("the materialisation holds what an image cannot")

// errImageMismatch is the error of an image that does not fit the
// program of the store's record: it is stale.
var errImageMismatch = errors.New("the image does not fit the recorded program")

// imageRel is a relation's state as an image writes it.
type imageRel struct {
	r    *eval.Relation
	cols eval.Columns
	prov []int32 // the provenance column, its records numbered for the image
}

// imageState returns the relations an image of m holds and its pool: the
// records of their live tuples, numbered as an image keeps them.
func (m *Materialisation) imageState() ([]imageRel, eval.ProvPool, error) {
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
// that rule's when like(ci, pos[ci]).
func imageStateOf(e *eval.Evaluator, pos []int32, like func(ci, at int) bool) ([]imageRel, eval.ProvPool, error) {
	var pool eval.ProvPool
	num := make([]int32, len(e.Rels)) // relation -> its number in the image
	var rels []imageRel
	for ri, r := range e.Rels {
		num[ri] = -1
		if r.Internal {
			continue
		}
		if r.Lean || r.HasChoice() {
			return nil, pool, fmt.Errorf("%w: relation %s keeps no proofs or a choice domain", errNoImage, r.Display)
		}
		if e.Syms.Locals() > 0 && holdsLocal(r) {
			// Local ids are the process's: the store numbers the names
			// as it writes them.
			return nil, pool, fmt.Errorf("%w: relation %s holds symbols the store did not have", errNoImage, r.Display)
		}
		num[ri] = int32(len(rels))
		rels = append(rels, imageRel{r: r, cols: r.Columns()})
	}
	var buf []uint32
	for i := range rels {
		r := rels[i].r
		prov := make([]int32, r.N)
		for t := range int32(r.N) {
			p := r.ProvAt(t)
			switch {
			case p < 0:
				prov[t] = p
				continue
			case r.ConfAt(t) == 0:
				prov[t] = eval.ProvDeleted
				continue
			}
			ci := e.Pool.Rule(p)
			if int(ci) >= len(pos) || pos[ci] < 0 {
				return nil, pool, fmt.Errorf("%w: a proof by a rule the program lacks", errNoImage)
			}
			at, rule := pos[ci], e.Rules[ci]
			if !like(int(ci), int(at)) {
				return nil, pool, fmt.Errorf("%w: a twin's proof unlike its rule's", errNoImage)
			}
			buf = append(buf[:0], e.Pool.Words(p, rule.RefWords())...)
			for k := range rule.Nprov {
				if rr := buf[2*k]; rr != eval.NoMatch {
					if num[rr] < 0 {
						return nil, pool, fmt.Errorf("%w: a proof uses an internal relation", errNoImage)
					}
					buf[2*k] = uint32(num[rr])
				}
			}
			prov[t] = pool.Add(uint32(at), buf)
		}
		rels[i].prov = prov
	}
	return rels, pool, nil
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
	return writeImage(db, fs, m.prog, m.e.Derived, m.imageState)
}

// writeImage writes the image of the materialisation of prog, derived
// facts long, whose relations and pool state returns, to db's directory
// (see WriteImage).
func writeImage(db *store.DB, fs store.ImageFS, prog *datalog.Program, derived int, state func() ([]imageRel, eval.ProvPool, error)) error {
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
	rels, pool, err := state()
	if err != nil {
		return pkgerr.Newf("reasoner: write image: %w", err)
	}
	gen, mat := db.ImageVersion()
	h := store.NewImageHeader(gen, mat, n, ms.Program)
	return store.WriteImage(fs, db.Dir(), h, func(w *store.ImageWriter) {
		w.U64(uint64(len(prog.Rules)))
		w.U64(uint64(len(prog.Facts)))
		w.U64(uint64(derived))
		w.U64(uint64(len(rels)))
		for _, ir := range rels {
			writeRel(w, ir)
		}
		w.U64(uint64(len(pool.Chunks)))
		for _, c := range pool.Chunks {
			w.U64(uint64(len(c)))
			w.U32s(c)
		}
	})
}

// writeRel writes a relation of an image.
func writeRel(w *store.ImageWriter, ir imageRel) {
	r, c := ir.r, &ir.cols
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
	w.I32s(ir.prov)
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
