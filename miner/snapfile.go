package miner

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"iter"
	"math"
	"os"
	"slices"

	"github.com/drumql/drumql/internal/csr"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// Source is what training reads besides the graph itself: the names of
// symbols and the named splits. A store.Store is a Source, and so is a
// snapshot file read with ReadSnapshotFile.
type Source interface {
	// Name returns the name of symbol id.
	Name(id store.ID) (string, error)
	// Splits lists the named splits.
	Splits() ([]string, error)
	// Split yields the triples of a named split in file order.
	Split(name string) iter.Seq2[store.Triple, error]
}

// GraphSource is a Source that also gives the binary base graph.
type GraphSource interface {
	Source
	// Snapshot returns the binary base facts as CSR arrays.
	Snapshot(ctx context.Context) (*store.Snapshot, error)
}

// snapMagic starts every snapshot file; the format version follows it.
const (
	snapMagic   = "drumql-snapshot\n"
	snapVersion = 1
)

// ErrBadSnapshot is returned by ReadSnapshot for a file that is not a valid
// snapshot file (bad magic, unknown version, truncated, or a checksum
// mismatch).
var ErrBadSnapshot = errors.New("miner: not a valid drumql snapshot file")

// SnapshotFile is the content of a snapshot file: the graph, the names of
// every symbol it or a split mentions, and the splits. It implements
// GraphSource, so that LoadGraph and TrainGraph read it as they read a store.
type SnapshotFile struct {
	snap   *store.Snapshot
	ids    []store.ID // sorted symbol ids
	names  []string   // names[i] is the name of ids[i]
	splits []string
	data   [][]store.Triple // data[i] is split splits[i]
}

// Name implements Source.
func (f *SnapshotFile) Name(id store.ID) (string, error) {
	i, ok := slices.BinarySearch(f.ids, id)
	if !ok {
		return "", pkgerr.Newf("miner: snapshot file: symbol %d: not in the file", id)
	}
	return f.names[i], nil
}

// Symbols yields the id and name of every symbol in the file, by
// increasing id.
func (f *SnapshotFile) Symbols() iter.Seq2[store.ID, string] {
	return func(yield func(store.ID, string) bool) {
		for i, id := range f.ids {
			if !yield(id, f.names[i]) {
				return
			}
		}
	}
}

// Splits implements Source.
func (f *SnapshotFile) Splits() ([]string, error) { return slices.Clone(f.splits), nil }

// Split implements Source; an unknown split yields store.ErrUnknownSplit.
func (f *SnapshotFile) Split(name string) iter.Seq2[store.Triple, error] {
	return func(yield func(store.Triple, error) bool) {
		i := slices.Index(f.splits, name)
		if i < 0 {
			yield(store.Triple{}, pkgerr.Newf("miner: snapshot file: split %q: %w", name, store.ErrUnknownSplit))
			return
		}
		for _, t := range f.data[i] {
			if !yield(t, nil) {
				return
			}
		}
	}
}

// Snapshot implements GraphSource. The snapshot is shared, not copied.
func (f *SnapshotFile) Snapshot(context.Context) (*store.Snapshot, error) { return f.snap, nil }

// WriteSnapshot writes what mining reads from src (the binary base graph,
// the names of its symbols and of every symbol of a split, and every split)
// to w in the snapshot file format:
//
//	"drumql-snapshot\n", uint32 version (1),
//	uint64 E, E × uint32 entity symbol ids (increasing),
//	uint64 R, per relation: uint32 symbol id, uint64 m, m × uint32 head
//	    indices, m × uint32 tail indices (the facts sorted by head, then
//	    tail: the edge id of a fact is its position),
//	uint64 S, per symbol (increasing id): uint32 id, uint32 n, n bytes of name,
//	uint64 P, per split: uint32 n, n bytes of name, uint64 k, k × 3 × uint32
//	    (subject, relation, object symbol ids, in file order),
//	uint32 CRC-32C (Castagnoli) of every byte before it.
//
// All integers are little-endian. Reading rebuilds the CSR arrays exactly as
// the store builds them, so mining from the file gives the same bytes.
func WriteSnapshot(ctx context.Context, w io.Writer, src GraphSource) error {
	snap, err := src.Snapshot(ctx)
	if err != nil {
		return pkgerr.Newf("miner: write snapshot: %w", err)
	}
	splits, err := src.Splits()
	if err != nil {
		return pkgerr.Newf("miner: write snapshot: splits: %w", err)
	}
	slices.Sort(splits)
	data := make([][]store.Triple, len(splits))
	for i, name := range splits {
		for t, err := range src.Split(name) {
			if err != nil {
				return pkgerr.Newf("miner: write snapshot: split %q: %w", name, err)
			}
			data[i] = append(data[i], t)
		}
	}
	ids := slices.Concat(snap.Entities, snap.Relations)
	for _, ts := range data {
		for _, t := range ts {
			ids = append(ids, t.S, t.R, t.O)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	sw := &snapWriter{w: bufio.NewWriterSize(w, 1<<20), h: crc32.New(crc32.MakeTable(crc32.Castagnoli))}
	sw.bytes([]byte(snapMagic))
	sw.u32(snapVersion)
	sw.u64(uint64(len(snap.Entities)))
	for _, id := range snap.Entities {
		sw.u32(uint32(id))
	}
	sw.u64(uint64(len(snap.Relations)))
	for r, id := range snap.Relations {
		out := &snap.Out[r]
		sw.u32(uint32(id))
		sw.u64(uint64(len(out.Col)))
		for k := range out.Stored() {
			h := out.RowAt(k)
			for range out.RowPtr[k+1] - out.RowPtr[k] {
				sw.u32(uint32(h))
			}
		}
		for _, t := range out.Col {
			sw.u32(uint32(t))
		}
		if err := ctx.Err(); err != nil {
			return pkgerr.Newf("miner: write snapshot: %w", err)
		}
	}
	sw.u64(uint64(len(ids)))
	for _, id := range ids {
		name, err := src.Name(id)
		if err != nil {
			return pkgerr.Newf("miner: write snapshot: symbol %d: %w", id, err)
		}
		sw.u32(uint32(id))
		sw.u32(uint32(len(name)))
		sw.bytes([]byte(name))
	}
	sw.u64(uint64(len(splits)))
	for i, name := range splits {
		sw.u32(uint32(len(name)))
		sw.bytes([]byte(name))
		sw.u64(uint64(len(data[i])))
		for _, t := range data[i] {
			sw.u32(uint32(t.S))
			sw.u32(uint32(t.R))
			sw.u32(uint32(t.O))
		}
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], sw.h.Sum32())
	sw.w.Write(sum[:])
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	if sw.err != nil {
		return pkgerr.Newf("miner: write snapshot: %w", sw.err)
	}
	return nil
}

// snapWriter writes little-endian integers through a checksum, keeping the
// first error.
type snapWriter struct {
	w   *bufio.Writer
	h   hash.Hash32
	err error
	buf [8]byte
}

func (s *snapWriter) bytes(b []byte) {
	if s.err != nil {
		return
	}
	s.h.Write(b)
	_, s.err = s.w.Write(b)
}

func (s *snapWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(s.buf[:4], v)
	s.bytes(s.buf[:4])
}

func (s *snapWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(s.buf[:], v)
	s.bytes(s.buf[:])
}

// ReadSnapshotFile reads the snapshot file at path (see WriteSnapshot).
// Errors name the file.
func ReadSnapshotFile(path string) (*SnapshotFile, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, pkgerr.Newf("miner: read snapshot: %w", err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, pkgerr.Newf("miner: read snapshot %s: %w", path, err)
	}
	f, err := ReadSnapshot(fh, info.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// ReadSnapshot reads a snapshot file of size bytes from r and verifies its
// checksum. Counts are checked against size before anything is allocated, so
// a damaged file gives ErrBadSnapshot, not an allocation failure.
func ReadSnapshot(r io.Reader, size int64) (*SnapshotFile, error) {
	sr := &snapReader{r: bufio.NewReaderSize(r, 1<<20), h: crc32.New(crc32.MakeTable(crc32.Castagnoli)), left: size - 4}
	f, err := sr.read()
	if err != nil {
		return nil, err
	}
	want := sr.h.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(sr.r, sum[:]); err != nil {
		return nil, pkgerr.Newf("miner: read snapshot: truncated (no checksum): %w", ErrBadSnapshot)
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return nil, pkgerr.Newf("miner: read snapshot: checksum mismatch (file says %08x, content gives %08x): the file is damaged: %w", got, want, ErrBadSnapshot)
	}
	if _, err := sr.r.ReadByte(); err != io.EOF {
		return nil, pkgerr.Newf("miner: read snapshot: trailing data after the checksum: %w", ErrBadSnapshot)
	}
	return f, nil
}

// snapReader reads little-endian integers through a checksum; left is the
// number of bytes before the checksum still unread.
type snapReader struct {
	r    *bufio.Reader
	h    hash.Hash32
	left int64
	err  error
	buf  [8]byte
}

func (s *snapReader) bad(what string) {
	if s.err == nil {
		s.err = pkgerr.Newf("miner: read snapshot: %s: %w", what, ErrBadSnapshot)
	}
}

func (s *snapReader) bytes(b []byte) {
	if s.err != nil {
		return
	}
	if int64(len(b)) > s.left {
		s.bad("truncated")
		return
	}
	if _, err := io.ReadFull(s.r, b); err != nil {
		s.bad("truncated")
		return
	}
	s.left -= int64(len(b))
	s.h.Write(b)
}

func (s *snapReader) u32() uint32 {
	s.bytes(s.buf[:4])
	if s.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint32(s.buf[:4])
}

func (s *snapReader) u64() uint64 {
	s.bytes(s.buf[:])
	if s.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint64(s.buf[:])
}

// count reads a uint64 count of items of at least unit bytes each, checking
// that so many fit in what is left of the file and in an int32 index (the
// in-memory CSR arrays are int32-indexed).
func (s *snapReader) count(what string, unit int64) int {
	n := s.u64()
	if s.err != nil {
		return 0
	}
	if n > math.MaxInt32 || int64(n)*unit > s.left {
		s.bad(fmt.Sprintf("%s count %d does not fit in the file", what, n))
		return 0
	}
	return int(n)
}

// u32s reads n little-endian uint32 values.
func (s *snapReader) u32s(n int) []uint32 {
	raw := make([]byte, 4*n)
	s.bytes(raw)
	if s.err != nil {
		return nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return out
}

func (s *snapReader) read() (*SnapshotFile, error) {
	magic := make([]byte, len(snapMagic))
	s.bytes(magic)
	if s.err != nil || string(magic) != snapMagic {
		return nil, pkgerr.Newf("miner: read snapshot: bad magic: %w", ErrBadSnapshot)
	}
	if v := s.u32(); s.err == nil && v != snapVersion {
		return nil, pkgerr.Newf("miner: read snapshot: format version %d, this drumql reads version %d: %w", v, snapVersion, ErrBadSnapshot)
	}
	f := &SnapshotFile{snap: &store.Snapshot{}}
	snap := f.snap
	E := s.count("entity", 4)
	for _, id := range s.u32s(E) {
		snap.Entities = append(snap.Entities, store.ID(id))
	}
	for i := 1; s.err == nil && i < E; i++ {
		if snap.Entities[i] <= snap.Entities[i-1] {
			s.bad("entity ids not increasing")
		}
	}
	R := s.count("relation", 12)
	facts := 0
	snap.Out = make([]store.CSR, 0, R)
	snap.In = make([]store.CSR, 0, R)
	for range R {
		if s.err != nil {
			break
		}
		snap.Relations = append(snap.Relations, store.ID(s.u32()))
		m := s.count("fact", 8)
		hs, ts := s.u32s(m), s.u32s(m)
		if s.err != nil {
			break
		}
		subs, objs := make([]int32, m), make([]int32, m)
		for k := range m {
			h, t := hs[k], ts[k]
			if int(h) >= E || int(t) >= E {
				s.bad(fmt.Sprintf("fact %d of relation %d has an entity index out of range", k, len(snap.Relations)-1))
				break
			}
			if k > 0 && (h < hs[k-1] || h == hs[k-1] && t <= ts[k-1]) {
				s.bad(fmt.Sprintf("facts of relation %d not sorted", len(snap.Relations)-1))
				break
			}
			subs[k], objs[k] = int32(h), int32(t)
		}
		if s.err != nil {
			break
		}
		out, in := csr.Adjacency(E, subs, objs, false)
		snap.Out, snap.In = append(snap.Out, out), append(snap.In, in)
		facts += m
	}
	// The layout the store would choose: all dense while that is cheap.
	if csr.AllDense(len(snap.Out), E, facts) {
		for r := range snap.Out {
			snap.Out[r], snap.In[r] = snap.Out[r].Expand(E), snap.In[r].Expand(E)
		}
	}
	S := s.count("symbol", 8)
	f.ids, f.names = make([]store.ID, 0, S), make([]string, 0, S)
	for range S {
		id := store.ID(s.u32())
		n := s.u32()
		if s.err == nil && int64(n) > s.left {
			s.bad("symbol name longer than the file")
		}
		if s.err != nil {
			break
		}
		name := make([]byte, n)
		s.bytes(name)
		if len(f.ids) > 0 && id <= f.ids[len(f.ids)-1] {
			s.bad("symbol ids not increasing")
		}
		f.ids, f.names = append(f.ids, id), append(f.names, string(name))
	}
	P := s.count("split", 12)
	for range P {
		n := s.u32()
		if s.err == nil && int64(n) > s.left {
			s.bad("split name longer than the file")
		}
		if s.err != nil {
			break
		}
		name := make([]byte, n)
		s.bytes(name)
		k := s.count("split triple", 12)
		raw := s.u32s(3 * k)
		if s.err != nil {
			break
		}
		ts := make([]store.Triple, k)
		for i := range ts {
			ts[i] = store.Triple{S: store.ID(raw[3*i]), R: store.ID(raw[3*i+1]), O: store.ID(raw[3*i+2])}
		}
		f.splits, f.data = append(f.splits, string(name)), append(f.data, ts)
	}
	if s.err != nil {
		return nil, s.err
	}
	if s.left != 0 {
		return nil, pkgerr.Newf("miner: read snapshot: %d unexpected bytes before the checksum: %w", s.left, ErrBadSnapshot)
	}
	return f, nil
}
