package wire

import (
	"fmt"
	"io"

	"github.com/drumql/drumql/store"
)

// VerifyImage checks the materialisation image of st, if it is an on-disk
// store with one (its checksum, and whether it is of the store's derived
// facts), and writes a line about it on w: a stale image is a note, a
// corrupt one a store.CorruptError, as damaged data of the store is.
func VerifyImage(w io.Writer, st store.Store) error {
	db, ok := st.(*store.DB)
	if !ok {
		return nil
	}
	s, err := db.Image(true)
	if err != nil || !s.Present {
		return err
	}
	if s.Corrupt != nil {
		fmt.Fprintf(w, "image: %s (%d bytes): corrupt; infer does not use it and writes a new one\n", store.ImageFile, s.Size)
		return &store.CorruptError{Dir: db.Dir(), File: store.ImageFile, What: s.Corrupt.Error() + "; infer does not use it: remove it, or let the next update replace it"}
	}
	im := NewImage(s)
	if !s.Current {
		fmt.Fprintf(w, "note: image: %s; infer does not use it and writes a new one\n", im)
		return nil
	}
	fmt.Fprintf(w, "image: %s\n", im)
	return nil
}

// Notes writes each note on w, as a line "note: NOTE".
func Notes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
