package maintain

import (
	"context"
	"fmt"
	"io"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// InferOptions configures Infer. The zero value means the defaults.
type InferOptions struct {
	// NoImage makes Infer write no materialisation image (as
	// CatchupOptions.NoImage).
	NoImage bool
	// ImageFS is the file system the image is written to (nil: the
	// operating system's).
	ImageFS store.ImageFS
	// Notes, if not nil, receives a "note: " line when the image could not
	// be written (the derived facts are stored all the same).
	Notes io.Writer
}

// Infer is reasoner.Infer, the materialisation of prog from scratch, that
// then writes the materialisation image of an on-disk store (as Catchup
// does after an update) from what the evaluation left: the relations'
// columns and the provenance pool, without the unique indexes, which the
// evaluation dropped before its write and ResumeImage builds again. The
// first update after it reads the image instead of the stored derived
// facts. A program whose state an image cannot hold (SaveImage) removes
// the stale image instead.
func Infer(ctx context.Context, st store.Store, prog *datalog.Program, opt eval.Options, iopt InferOptions) (eval.InferStats, error) {
	db, _ := st.(*store.DB)
	if db == nil || iopt.NoImage {
		return eval.Infer(ctx, st, prog, opt)
	}
	if prog == nil {
		prog = &datalog.Program{}
	}
	// The image needs the program's size only: the closure holds no
	// reference to prog, whose rules the evaluation lets go of.
	size := sizeOf(prog)
	return eval.InferThen(ctx, st, prog, opt, func(in eval.Inferred, err error) {
		state := func() (*imageSrc, error) {
			// Each compiled rule is its program rule: records alike.
			return imageStateOf(in.E, in.Pos, func(int, int) bool { return true })
		}
		if err == nil {
			err = writeImage(db, iopt.ImageFS, size, in.Facts, state)
		}
		if note := saveImage(db, err); note != "" && iopt.Notes != nil {
			fmt.Fprintf(iopt.Notes, "note: %s\n", note)
		}
		// the compactions the write left, paid here rather than by the
		// next process to open the store (store.DB.Settle)
		db.Settle(ctx)
	})
}
