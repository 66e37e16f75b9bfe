package miner

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"

	"github.com/drumql/drumql/internal/pkgerr"
)

// modelMagic starts every model file.
const modelMagic = "drumql-drum-model 1\n"

// ErrBadModel is returned by Load for a file that is not a valid model.
var ErrBadModel = errors.New("miner: not a valid drumql model file")

// fileHeader is the JSON header of a model file.
type fileHeader struct {
	Config    Config       `json:"config"`
	Relations []string     `json:"relations"`
	Blocks    []block      `json:"blocks"`
	History   []EpochStats `json:"history,omitempty"`
}

// Save writes the model in the format described in the package
// documentation: magic line, header length, JSON header, float64
// parameters.
func (m *Model) Save(w io.Writer) error {
	hdr, err := json.Marshal(fileHeader{Config: m.cfg, Relations: m.rels, Blocks: m.lay.blocks, History: m.history})
	if err != nil {
		return pkgerr.Newf("miner: save: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(modelMagic)
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(hdr)))
	bw.Write(n[:])
	bw.Write(hdr)
	var buf [8]byte
	for _, v := range m.params {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		bw.Write(buf[:])
	}
	if err := bw.Flush(); err != nil {
		return pkgerr.Newf("miner: save: %w", err)
	}
	return nil
}

// Load reads a model written by Save. The loaded model has no graph: pass
// one in ExtractOptions for support counts, and to Scores.
func Load(r io.Reader) (*Model, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic := make([]byte, len(modelMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != modelMagic {
		return nil, pkgerr.Newf("miner: load: bad magic: %w", ErrBadModel)
	}
	var n [4]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return nil, pkgerr.Newf("miner: load: %w", err)
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > 1<<28 {
		return nil, pkgerr.Newf("miner: load: header of %d bytes: %w", size, ErrBadModel)
	}
	hdr := make([]byte, size)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, pkgerr.Newf("miner: load: %w", err)
	}
	var fh fileHeader
	if err := json.Unmarshal(hdr, &fh); err != nil {
		return nil, pkgerr.Newf("miner: load: header: %w (%w)", err, ErrBadModel)
	}
	cfg := fh.Config.WithDefaults()
	if len(fh.Relations) == 0 {
		return nil, pkgerr.Newf("miner: load: no relations: %w", ErrBadModel)
	}
	m := &Model{cfg: cfg, rels: fh.Relations, relIdx: make(map[string]int), history: fh.History}
	for i, r := range m.rels {
		if _, dup := m.relIdx[r]; dup {
			return nil, pkgerr.Newf("miner: load: duplicate relation %q: %w", r, ErrBadModel)
		}
		m.relIdx[r] = i
	}
	m.lay = newLayout(cfg, len(m.rels))
	if len(fh.Blocks) != len(m.lay.blocks) {
		return nil, pkgerr.Newf("miner: load: %d parameter blocks, want %d: %w", len(fh.Blocks), len(m.lay.blocks), ErrBadModel)
	}
	for i, b := range fh.Blocks {
		want := m.lay.blocks[i]
		if b.Name != want.Name || b.Rows != want.Rows || b.Cols != want.Cols {
			return nil, pkgerr.Newf("miner: load: block %d is %s %dx%d, want %s %dx%d: %w", i, b.Name, b.Rows, b.Cols, want.Name, want.Rows, want.Cols, ErrBadModel)
		}
	}
	m.params = make([]float64, m.lay.size)
	var buf [8]byte
	for i := range m.params {
		if _, err := io.ReadFull(br, buf[:]); err != nil {
			return nil, pkgerr.Newf("miner: load: parameters: %w", err)
		}
		m.params[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[:]))
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, pkgerr.Newf("miner: load: trailing data: %w", ErrBadModel)
	}
	return m, nil
}
