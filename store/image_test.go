package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestImageRoundTrip: an image's body reads back as written, and every
// damage to its bytes (a byte flipped anywhere, the file cut short or
// grown) is found: an error from OpenImage or Finish, or a header that
// no longer names what it did.
func TestImageRoundTrip(t *testing.T) {
	dir := t.TempDir()
	h := NewImageHeader(3, 7, 100, []byte("record"))
	words := []uint32{1, 2, 3, 1 << 31}
	floats := []float64{0.5, 1, 0}
	if err := WriteImage(nil, dir, h, func(w *ImageWriter) {
		w.String("rel")
		w.U64(uint64(len(words)))
		w.U32s(words)
		w.F64s(floats)
	}); err != nil {
		t.Fatal(err)
	}
	read := func() ([]uint32, []float64, error) {
		r, err := OpenImage(dir)
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		if r.Header != h {
			return nil, nil, errors.New("header changed")
		}
		if r.String() != "rel" {
			r.Skip()
			return nil, nil, errors.Join(r.Finish(), errors.New("string changed"))
		}
		ws := make([]uint32, r.Count(4))
		r.U32s(ws)
		fs := make([]float64, len(floats))
		r.F64s(fs)
		return ws, fs, r.Finish()
	}
	ws, fs, err := read()
	if err != nil || !slices.Equal(ws, words) || !slices.Equal(fs, floats) {
		t.Fatalf("read back %v %v, %v; want %v %v", ws, fs, err, words, floats)
	}
	path := filepath.Join(dir, ImageFile)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := [][]byte{good[:len(good)-1], append(slices.Clone(good), 0)}
	for i := range good {
		b := slices.Clone(good)
		b[i] ^= 0x01
		damaged = append(damaged, b)
	}
	for i, b := range damaged {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := read(); err == nil {
			t.Errorf("damage %d: the image reads back without an error", i)
		}
	}
	if err := RemoveImage(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenImage(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenImage without an image: %v, want ErrNotExist", err)
	}
}

// TestImageCurrent: an image is of the store's derived facts when its
// generation, materialisation and record digest are the store's, and the
// store has at least its symbols.
func TestImageCurrent(t *testing.T) {
	h := NewImageHeader(3, 7, 100, []byte("record"))
	for _, tc := range []struct {
		gen, mat uint64
		syms     int
		record   string
		want     bool
	}{
		{3, 7, 100, "record", true},
		{3, 7, 120, "record", true},
		{4, 7, 100, "record", false},
		{3, 8, 100, "record", false},
		{3, 7, 99, "record", false},
		{3, 7, 100, "other", false},
	} {
		if got := ImageCurrent(h, tc.gen, tc.mat, tc.syms, []byte(tc.record)); got != tc.want {
			t.Errorf("ImageCurrent(%d, %d, %d, %q) = %v, want %v", tc.gen, tc.mat, tc.syms, tc.record, got, tc.want)
		}
	}
	if ImageCurrent(h, 3, 7, 100, nil) {
		t.Error("ImageCurrent with no record: true")
	}
}
