package store

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"
)

// Materialisation images.
//
// An image is a file beside the store, in its directory, holding a
// reasoner's in-memory state of the materialisation the store's derived
// facts are (reasoner/maintain writes and reads its body): reading it back
// costs a few large reads where rebuilding that state from the derived
// facts costs a decoding and a hash insert per fact. The store only knows
// its container: a header naming the derived facts it is of (the derived
// generation, the materialisation id and a digest of the record), a body
// of flat little-endian arrays, and a trailer with the body's length and a
// CRC-32C of every byte before it. An image whose header does not name the
// store's current derived facts is stale; one whose checksum or length
// does not match is corrupt; neither is used. It is written to a temporary
// file in the directory, synced, renamed over the old one and the
// directory synced: a crash or a full disk at any step leaves the old
// image or none, never a mix.

// ImageFile is the name of the materialisation image in a store's
// directory.
const ImageFile = "materialisation.img"

const (
	imageTemp    = ".image-*.tmp" // the temporary files of WriteImage
	imageMagic   = "DRQLIMG\x00"
	imageVersion = 1
	imageHeadLen = 8 + 4 + 4 + 8 + 8 + 8 + sha256.Size
	imageTailLen = 8 + 4
)

// ErrCorruptImage is wrapped by the errors of an image whose bytes do not
// check out (checksum, length, a count beyond the file).
var ErrCorruptImage = errors.New("store: the materialisation image is corrupt")

// ImageHeader names the derived facts an image is of.
type ImageHeader struct {
	// DerivedGen and Material are the store's derived generation and
	// materialisation id (ImageVersion) when the image was written.
	DerivedGen, Material uint64
	// Symbols is the number of symbols of the store's dictionary then.
	Symbols uint64
	// Record is the SHA-256 of the materialisation record.
	Record [sha256.Size]byte
}

// NewImageHeader returns the header of an image of the derived facts that
// gen and mat (ImageVersion) name, with record (MaterialState.Program) and
// symbols dictionary entries.
func NewImageHeader(gen, mat uint64, symbols int, record []byte) ImageHeader {
	return ImageHeader{DerivedGen: gen, Material: mat, Symbols: uint64(symbols), Record: sha256.Sum256(record)}
}

// ImageVersion returns the store's derived generation and materialisation
// id: an image written with them is of the current derived facts until
// the next write of derived facts.
func (d *DB) ImageVersion() (gen, mat uint64) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.dgen, d.mat.ID
}

// littleEndian reports whether the host stores words little-endian, as
// images do (they are read into the arrays without decoding).
func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// asBytes is the memory of s, a slice of fixed-size numbers, as bytes.
func asBytes[T uint32 | int32 | uint64 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// ImageFS is the file system an image is written to; tests inject
// failures with their own.
type ImageFS interface {
	CreateTemp(dir, pattern string) (ImageTemp, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	SyncDir(dir string) error
}

// ImageTemp is the temporary file an image is written to.
type ImageTemp interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// OSImageFS is the operating system's file system.
type OSImageFS struct{}

// CreateTemp implements ImageFS.
func (OSImageFS) CreateTemp(dir, pattern string) (ImageTemp, error) {
	return os.CreateTemp(dir, pattern)
}

// Rename implements ImageFS.
func (OSImageFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove implements ImageFS.
func (OSImageFS) Remove(name string) error { return os.Remove(name) }

// SyncDir implements ImageFS. A directory cannot be synced on Windows:
// there the rename is as durable as the file system makes it (the image
// is whole either way).
func (OSImageFS) SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// ImageWriter writes an image's body: numbers and arrays, little-endian.
// Its first error sticks and makes the later writes no-ops; WriteImage
// returns it.
type ImageWriter struct {
	w   io.Writer
	n   int64
	err error
	buf [8]byte
}

func (w *ImageWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	var k int
	k, w.err = w.w.Write(b)
	w.n += int64(k)
}

// Fail makes err the writer's error unless it has one: the body found
// that it cannot write the image. WriteImage returns it, the old image
// left as it was.
func (w *ImageWriter) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Err is the writer's first error, or nil.
func (w *ImageWriter) Err() error { return w.err }

// U64 writes x.
func (w *ImageWriter) U64(x uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], x)
	w.write(w.buf[:])
}

// String writes s, its length first.
func (w *ImageWriter) String(s string) {
	w.U64(uint64(len(s)))
	w.write([]byte(s))
}

// U32s writes the words of s (not their number).
func (w *ImageWriter) U32s(s []uint32) { w.write(asBytes(s)) }

// I32s writes the words of s.
func (w *ImageWriter) I32s(s []int32) { w.write(asBytes(s)) }

// U64s writes the words of s.
func (w *ImageWriter) U64s(s []uint64) { w.write(asBytes(s)) }

// F64s writes the numbers of s.
func (w *ImageWriter) F64s(s []float64) { w.write(asBytes(s)) }

// crcWriter passes writes on to w, adding them to a checksum.
type crcWriter struct {
	w   io.Writer
	crc hash.Hash32
}

func (c *crcWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.crc.Write(b[:n])
	return n, err
}

// castagnoli is the CRC-32C table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteImage writes the image of h with the body body writes to dir's
// ImageFile, atomically through fs (nil: the operating system's): a
// temporary file, synced, renamed over the old image, the directory
// synced. On an error the temporary file is removed and the old image, if
// any, is left as it was.
func WriteImage(fs ImageFS, dir string, h ImageHeader, body func(*ImageWriter)) (err error) {
	if !littleEndian() {
		return errors.New("store: materialisation images need a little-endian host")
	}
	if fs == nil {
		fs = OSImageFS{}
	}
	// A writer killed before its rename left its temporary file: the
	// store's lock makes this process the only writer.
	if old, err := filepath.Glob(filepath.Join(dir, imageTemp)); err == nil {
		for _, name := range old {
			fs.Remove(name)
		}
	}
	f, err := fs.CreateTemp(dir, imageTemp)
	if err != nil {
		return fmt.Errorf("store: write image: %w", err)
	}
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			fs.Remove(f.Name())
			err = fmt.Errorf("store: write image: %w", err)
		}
	}()
	cw := &crcWriter{w: f, crc: crc32.New(castagnoli)}
	pw := newPipeWriter(cw, 1<<20, 3)
	w := &ImageWriter{w: pw}
	w.write([]byte(imageMagic))
	binary.LittleEndian.PutUint32(w.buf[:4], imageVersion)
	w.write(w.buf[:4])
	w.write(make([]byte, 4)) // flags
	w.U64(h.DerivedGen)
	w.U64(h.Material)
	w.U64(h.Symbols)
	w.write(h.Record[:])
	w.n = 0
	body(w)
	w.U64(uint64(w.n)) // the body's length
	if err := pw.Close(); w.err == nil {
		w.err = err
	}
	if w.err != nil {
		return w.err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], cw.crc.Sum32())
	if _, err := f.Write(sum[:]); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	closed = true
	if err := f.Close(); err != nil {
		return err
	}
	if err := fs.Rename(f.Name(), filepath.Join(dir, ImageFile)); err != nil {
		return err
	}
	if err := fs.SyncDir(dir); err != nil {
		// The rename may or may not survive a crash: either image is whole.
		return err
	}
	return nil
}

// RemoveImage removes dir's image, if any.
func RemoveImage(dir string) error {
	err := os.Remove(filepath.Join(dir, ImageFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
