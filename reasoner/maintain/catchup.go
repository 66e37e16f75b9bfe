package maintain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// CatchupOptions configures Catchup. The zero value means the defaults.
type CatchupOptions struct {
	// Keep makes Catchup return the materialisation even when the stored
	// derived facts are already up to date (the same program, no base
	// change), at the cost of reading them; without it nothing is read
	// then.
	Keep bool
	// Describe, if not nil, is told what Catchup is doing (for a progress
	// bar).
	Describe func(string)
	// Validated says prog was checked with datalog.Validate and has no
	// error (the CLI's loading does): the update does not validate it
	// again (Delta.Validated).
	Validated bool
	// Parse parses program text, as parser.ParseString does (the reasoner
	// does not depend on the parser): Catchup reads the store's record of
	// the last materialisation with it. It is required.
	Parse func(filename, src string) (*datalog.Program, error)
	// NoImage makes Catchup neither read nor write the materialisation
	// image of an on-disk store (maintain_image.go): it reads the stored
	// derived facts (Resume) as without one.
	NoImage bool
	// ImageFS is the file system images are written to (nil: the
	// operating system's); tests inject failures with it.
	ImageFS store.ImageFS
}

// CatchupResult is what Catchup did.
type CatchupResult struct {
	// M is the materialisation brought up to date; nil when the store must
	// be recomputed (Recompute) or, without CatchupOptions.Keep, when it
	// was already current (Current).
	M *Materialisation
	// Recompute is set when the derived facts cannot be updated: no record
	// (the first infer; Why is empty) or another reason, which Why gives.
	Recompute bool
	Why       string
	// Current is set when the stored derived facts were already of the
	// program with no base change since.
	Current bool
	// Change is what the update did, and Changed whether it wrote to the
	// store.
	Change  Change
	Changed bool
	// Start, Resumed, Applied and Stored time the phases: the call, the
	// end of the read of the stored derived facts (or of the image), the
	// end of the update and the end of its write to the store (the image
	// is written after).
	Start, Resumed, Applied, Stored time.Time
	// FromImage is set when the materialisation was read from the
	// store's image instead of its derived facts; Notes are lines for the
	// user about the image (stale, corrupt, not written).
	FromImage bool
	Notes     []string
}

// Catchup brings the derived facts stored in st up to date with prog and
// the base facts loaded or retracted since they were written, through the
// incremental maintenance: it decodes the store's record of the last
// materialisation, resumes it (Resume), applies the new
// program and the logged base changes (Apply) and stores what changed
// (WriteUpdate). It reports Recompute instead when there is no record, too
// many base facts changed, or the record does not match the stored facts;
// the caller then evaluates from scratch (reasoner.Infer, or Materialise
// and Write). An error leaves the store as it was.
func Catchup(ctx context.Context, st store.Store, prog *datalog.Program, opt eval.Options, co CatchupOptions) (CatchupResult, error) {
	res := CatchupResult{Start: time.Now()}
	if co.Parse == nil {
		return res, errors.New("reasoner: Catchup: CatchupOptions.Parse is nil")
	}
	describe := func(s string) {
		if co.Describe != nil {
			co.Describe(s)
		}
	}
	ms, err := st.Materialised()
	if err != nil {
		return res, err
	}
	if ms.Program == nil {
		res.Recompute = true
		return res, nil
	}
	recompute := func(why string) (CatchupResult, error) {
		res.Recompute, res.Why = true, why
		return res, nil
	}
	if ms.Overflow {
		return recompute(fmt.Sprintf("more than %d base facts changed since the last infer", store.MaxChangeLog))
	}
	// The store's record is parsed while the program's record is encoded
	// (a second each of the pinned FB15k-237 file's heaviest update,
	// serial before). When the record is current and nothing is kept,
	// the parse is not waited for: it ends on its own, its result unread.
	type decoded struct {
		prog *datalog.Program
		min  float64
		err  error
	}
	dec := make(chan decoded, 1)
	go func() {
		old, min, err := DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) {
			return co.Parse("record", src)
		})
		dec <- decoded{old, min, err}
	}()
	record := RecordOf(prog, opt)
	if RecordCurrent(ms, record) {
		res.Current = true
		if !co.Keep {
			return res, nil
		}
	}
	d := <-dec
	old, min, err := d.prog, d.min, d.err
	if err != nil {
		return recompute(fmt.Sprintf("the store's record of the last infer cannot be read (%v)", err))
	}
	changes := make([]FactChange, len(ms.Changes))
	for i, ch := range ms.Changes {
		changes[i] = FactChange{Fact: ch.Fact, Added: ch.Added}
	}
	db, _ := st.(*store.DB)
	if co.NoImage {
		db = nil
	}
	var m *Materialisation
	if db != nil {
		describe("reading the materialisation image")
		if m, err = fromImageNote(ctx, db, ms, old, min, opt, &res); err != nil {
			return res, err
		}
	}
	if m == nil {
		describe("reading the stored derived facts")
		m, err = Resume(ctx, st, old, min, changes, opt)
	}
	switch {
	case errors.Is(err, ErrStaleRecord), errors.Is(err, eval.ErrInvalidProgram):
		return recompute(fmt.Sprintf("the stored derived facts cannot be updated (%v)", err))
	case err != nil:
		return res, err
	}
	res.Resumed = time.Now()
	describe("updating")
	ch, err := m.Apply(ctx, Delta{Base: changes, Program: prog, Validated: co.Validated, Record: record})
	if err != nil {
		return res, err
	}
	res.Applied = time.Now()
	res.Change = ch
	res.Changed = ch.Full || ch.Added+ch.Removed+ch.Reweighted+ch.Proofs > 0 || len(changes) > 0 ||
		!bytes.Equal(m.Record(), ms.Program)
	if res.Changed {
		describe("storing the changes")
		if err := m.WriteUpdate(ctx, ch); err != nil {
			return res, err
		}
	}
	res.Stored = time.Now()
	if db != nil && (res.Changed || !res.FromImage) {
		describe("writing the materialisation image")
		if note := m.SaveImage(db, co.ImageFS); note != "" {
			res.Notes = append(res.Notes, note)
		}
	}
	res.M = m
	return res, nil
}
