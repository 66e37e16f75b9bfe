package maintain

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// fromImage resumes the materialisation of prog (the record's program,
// threshold min) from the image of db, when there is one of its current
// derived facts: nil when there is none, or when it is stale or corrupt,
// which note then says (never an error: Catchup reads the store instead).
func fromImage(ctx context.Context, db *store.DB, ms store.MaterialState, prog *datalog.Program, min float64, opt eval.Options) (m *Materialisation, note string, err error) {
	r, err := store.OpenImage(db.Dir())
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, "", nil
	case errors.Is(err, store.ErrCorruptImage):
		return nil, corruptNote(err), nil
	case err != nil:
		return nil, fmt.Sprintf("the materialisation image cannot be read (%v): reading the derived facts from the store", err), nil
	}
	defer r.Close()
	gen, mat := db.ImageVersion()
	n, err := db.NumSymbols()
	if err != nil {
		return nil, "", err
	}
	if !store.ImageCurrent(r.Header, gen, mat, n, ms.Program) {
		return nil, staleNote, nil
	}
	m, err = ResumeImage(ctx, db, r, prog, min, opt)
	switch {
	case errors.Is(err, store.ErrCorruptImage):
		return nil, corruptNote(err), nil
	case errors.Is(err, errImageMismatch):
		return nil, staleNote, nil
	case err != nil && ctx.Err() != nil:
		return nil, "", err
	case err != nil:
		return nil, fmt.Sprintf("the materialisation image cannot be read (%v): reading the derived facts from the store", err), nil
	}
	return m, "", nil
}

// staleNote is the note of a stale image.
const staleNote = "the materialisation image is stale (not of the stored derived facts): reading them from the store, and writing a new image"

// corruptNote is the note of a corrupt image.
func corruptNote(err error) string {
	return fmt.Sprintf("the materialisation image is corrupt (%v): reading the derived facts from the store, and writing a new image", err)
}

// SaveImage writes m's image to db's directory after an update (Write or
// WriteUpdate) and returns a note when it could not (nothing to say when m
// holds what an image cannot: the stale image is removed, and the next
// update reads the store, as without images). fs is as for WriteImage.
func (m *Materialisation) SaveImage(db *store.DB, fs store.ImageFS) string {
	return saveImage(db, m.WriteImage(db, fs))
}

// saveImage is SaveImage after the image's write returned err.
func saveImage(db *store.DB, err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errNoImage):
		if rmErr := store.RemoveImage(db.Dir()); rmErr != nil {
			return fmt.Sprintf("the stale materialisation image could not be removed (%v)", rmErr)
		}
		return ""
	default:
		return fmt.Sprintf("the materialisation image was not written (%v): the next update reads the derived facts from the store", err)
	}
}

// fromImageNote is fromImage for Catchup: it records the note and whether
// the image was read in res.
func fromImageNote(ctx context.Context, db *store.DB, ms store.MaterialState, prog *datalog.Program, min float64, opt eval.Options, res *CatchupResult) (*Materialisation, error) {
	m, note, err := fromImage(ctx, db, ms, prog, min, opt)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	res.FromImage = m != nil
	return m, err
}
