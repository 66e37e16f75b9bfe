package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// ImageReader reads an image's body, checking its checksum as it goes:
// what it read is only to be trusted once Finish returned nil. Its first
// error sticks (Err); reads after it return zeros.
type ImageReader struct {
	Header ImageHeader
	// Size is the image's size in bytes.
	Size int64
	f    *os.File
	left int64 // body bytes not read yet
	crc  hash.Hash32
	sum  uint32
	err  error
	buf  [8]byte
}

// OpenImage opens dir's image and reads its header; the error wraps
// os.ErrNotExist when there is none and ErrCorruptImage when it is not
// one.
func OpenImage(dir string) (*ImageReader, error) {
	if !littleEndian() {
		return nil, errors.New("store: materialisation images need a little-endian host")
	}
	f, err := os.Open(filepath.Join(dir, ImageFile))
	if err != nil {
		return nil, err
	}
	r := &ImageReader{f: f, crc: crc32.New(castagnoli)}
	if err := r.open(); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func (r *ImageReader) open() error {
	fi, err := r.f.Stat()
	if err != nil {
		return err
	}
	r.Size = fi.Size()
	if r.Size < imageHeadLen+imageTailLen {
		return fmt.Errorf("%w: %d bytes", ErrCorruptImage, r.Size)
	}
	var tail [imageTailLen]byte
	if _, err := r.f.ReadAt(tail[:], r.Size-imageTailLen); err != nil {
		return err
	}
	body := binary.LittleEndian.Uint64(tail[:8])
	r.sum = binary.LittleEndian.Uint32(tail[8:])
	if body != uint64(r.Size-imageHeadLen-imageTailLen) {
		return fmt.Errorf("%w: its length says %d bytes of data, it has %d", ErrCorruptImage, body, r.Size-imageHeadLen-imageTailLen)
	}
	head := make([]byte, imageHeadLen)
	if _, err := io.ReadFull(r.f, head); err != nil {
		return err
	}
	r.crc.Write(head)
	if !bytes.Equal(head[:8], []byte(imageMagic)) {
		return fmt.Errorf("%w: not an image", ErrCorruptImage)
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != imageVersion {
		return fmt.Errorf("%w: version %d (this drumql reads %d)", ErrCorruptImage, v, imageVersion)
	}
	h := &r.Header
	h.DerivedGen = binary.LittleEndian.Uint64(head[16:])
	h.Material = binary.LittleEndian.Uint64(head[24:])
	h.Symbols = binary.LittleEndian.Uint64(head[32:])
	copy(h.Record[:], head[40:])
	r.left = int64(body) + 8 // and the length word
	return nil
}

// Close closes the image's file.
func (r *ImageReader) Close() error { return r.f.Close() }

// Err is the reader's first error.
func (r *ImageReader) Err() error { return r.err }

// read fills b from the body.
func (r *ImageReader) read(b []byte) {
	if r.err != nil {
		clear(b)
		return
	}
	if int64(len(b)) > r.left {
		r.err = fmt.Errorf("%w: a read past its end", ErrCorruptImage)
		clear(b)
		return
	}
	if _, err := io.ReadFull(r.f, b); err != nil {
		r.err = err
		clear(b)
		return
	}
	r.crc.Write(b)
	r.left -= int64(len(b))
}

// U64 reads a number.
func (r *ImageReader) U64() uint64 {
	r.read(r.buf[:])
	return binary.LittleEndian.Uint64(r.buf[:])
}

// Count reads a number of items of size bytes each that follow in the
// body: a number beyond what is left of it is an error (and 0).
func (r *ImageReader) Count(size int) int {
	n := r.U64()
	if r.err == nil && n > uint64(r.left)/uint64(max(size, 1)) {
		r.err = fmt.Errorf("%w: a count of %d beyond its end", ErrCorruptImage, n)
		return 0
	}
	return int(n)
}

// String reads a string written by ImageWriter.String.
func (r *ImageReader) String() string {
	b := make([]byte, r.Count(1))
	r.read(b)
	return string(b)
}

// U32s fills s.
func (r *ImageReader) U32s(s []uint32) { r.read(asBytes(s)) }

// I32s fills s.
func (r *ImageReader) I32s(s []int32) { r.read(asBytes(s)) }

// U64s fills s.
func (r *ImageReader) U64s(s []uint64) { r.read(asBytes(s)) }

// F64s fills s.
func (r *ImageReader) F64s(s []float64) { r.read(asBytes(s)) }

// Finish checks that the whole body was read (after its length word) and
// that the checksum matches.
func (r *ImageReader) Finish() error {
	if r.err != nil {
		return r.err
	}
	if r.left != 8 {
		return fmt.Errorf("%w: %d bytes left unread", ErrCorruptImage, r.left-8)
	}
	r.U64()
	if r.err != nil {
		return r.err
	}
	if r.crc.Sum32() != r.sum {
		return fmt.Errorf("%w: checksum mismatch", ErrCorruptImage)
	}
	return nil
}

// Skip reads the rest of the body (after which Finish checks it).
func (r *ImageReader) Skip() {
	buf := make([]byte, 1<<20)
	for r.err == nil && r.left > 8 {
		r.read(buf[:min(int64(len(buf)), r.left-8)])
	}
}

// ImageStatus is what a store knows of its image (DB.Image).
type ImageStatus struct {
	// Present is set when the store's directory holds an image; Size is
	// its size in bytes.
	Present bool
	Size    int64
	// Header is what the image says it is of (when it is not corrupt).
	Header ImageHeader
	// Current is set when it is of the store's derived facts.
	Current bool
	// Corrupt, if not nil, says why its bytes do not check out; with
	// checked false (DB.Image's check) only the header was read.
	Corrupt error
}

// Image reports on the store's image; check reads it whole to check its
// checksum, and the record to check its digest (without, Current compares
// the derived generation and materialisation id only).
func (d *DB) Image(check bool) (ImageStatus, error) {
	var s ImageStatus
	r, err := OpenImage(d.dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return s, nil
	case errors.Is(err, ErrCorruptImage):
		s.Present, s.Corrupt = true, err
		return s, nil
	case err != nil:
		return s, wrapf("store: image: %w", err)
	}
	defer r.Close()
	s.Present, s.Size, s.Header = true, r.Size, r.Header
	if check {
		r.Skip()
		if err := r.Finish(); errors.Is(err, ErrCorruptImage) {
			s.Corrupt = err
		} else if err != nil {
			return s, wrapf("store: image: %w", err)
		}
	}
	gen, mat := d.ImageVersion()
	n, err := d.NumSymbols()
	if err != nil {
		return s, err
	}
	if !check {
		// Without the record's digest: Materialised waits for a write in
		// flight, and stats must not.
		s.Current = mat != 0 && r.Header.DerivedGen == gen && r.Header.Material == mat && r.Header.Symbols <= uint64(n)
		return s, nil
	}
	ms, err := d.Materialised()
	if err != nil {
		return s, err
	}
	s.Current = s.Corrupt == nil && ImageCurrent(r.Header, gen, mat, n, ms.Program)
	return s, nil
}

// ImageCurrent reports whether an image with header h is of the derived
// facts of a store whose ImageVersion is gen and mat, with symbols
// dictionary entries and the record record.
func ImageCurrent(h ImageHeader, gen, mat uint64, symbols int, record []byte) bool {
	return record != nil && mat != 0 && h == NewImageHeader(gen, mat, int(h.Symbols), record) && h.Symbols <= uint64(symbols)
}
