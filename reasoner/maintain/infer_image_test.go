package maintain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// fullThenImage runs Infer (from scratch, writing the image) on db and
// checks what the image gives: a resume from it reads no fact from the
// store, and has the facts, confidences and proofs of Resume's from the
// stored derived facts. It reports false when Infer wrote no image.
func fullThenImage(t *testing.T, db *store.DB, prog *datalog.Program, opt eval.Options) bool {
	t.Helper()
	ctx := context.Background()
	var notes strings.Builder
	if _, err := Infer(ctx, db, prog, opt, InferOptions{Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	if notes.Len() > 0 {
		t.Fatalf("notes: %s", notes.String())
	}
	if s, err := db.Image(true); err != nil || !s.Current {
		return false
	}
	ms, err := db.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	old, min, err := DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) { return parser.ParseString("record", src) })
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.OpenImage(db.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cs := &countingStore{Store: db}
	m, err := ResumeImage(ctx, cs, r, old, min, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cs.base+cs.derived > 0 {
		t.Errorf("resuming from the image of a full infer read %d base and %d derived facts, want none", cs.base, cs.derived)
	}
	want, err := Resume(ctx, db, old, min, nil, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameResumed(t, m, want); err != nil {
		t.Fatalf("from the image of a full infer against from the store: %v", err)
	}
	return true
}

// TestInferWritesImage: after an infer from scratch (Infer), the next
// update reads the image it wrote, not the stored derived facts, and
// agrees with Infer from scratch; with a rule that cannot fire and one
// below the threshold, whose relations the image holds all the same
// (their base facts), and, with NoImage, no image is written.
func TestInferWritesImage(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tsv strings.Builder
	for i := range 30 {
		fmt.Fprintf(&tsv, "n%d\te\tn%d\nn%d\tw\tn%d\n", i, i+1, i, i+2)
	}
	testkit.LoadTSV(t, db, tsv.String())
	// The rules left out first: the records' rule numbers are not the
	// evaluation's.
	prog := testkit.MustParse(t, `@min 0.1.
0.05 :: q(X, Y) :- w(X, Y).
r(X) :- none(X, X).
p(X, Y) :- e(X, Y).
0.9 :: p(X, Z) :- p(X, Y), e(Y, Z).
`)
	if _, err := Infer(ctx, db, prog, eval.Options{}, InferOptions{NoImage: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(db.Dir(), store.ImageFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Infer with NoImage: the image is there (%v)", err)
	}
	if !fullThenImage(t, db, prog, eval.Options{}) {
		t.Fatal("Infer wrote no current image")
	}
	// An infer with nothing to update reads and writes nothing: the
	// image stays current.
	res, err := Catchup(ctx, db, prog, eval.Options{}, CatchupOptions{Parse: parser.ParseString})
	if s, ierr := db.Image(true); err != nil || !res.Current || ierr != nil || !s.Current {
		t.Fatalf("nothing to update: %+v, %v; the image %+v, %v", res, err, s, ierr)
	}
	testkit.LoadTSV(t, db, "n30\te\tn31\n")
	prog2 := testkit.MustParse(t, strings.Replace(prog.String(), "0.05 ::", "0.5 ::", 1))
	res, err = Catchup(ctx, db, prog2, eval.Options{}, CatchupOptions{Parse: parser.ParseString})
	if err != nil || res.M == nil || !res.FromImage {
		t.Fatalf("the update after Infer: from the image %v, notes %q, %v", res.FromImage, res.Notes, err)
	}
	tsv.WriteString("n30\te\tn31\n")
	fresh := testkit.NewStore(t, tsv.String())
	if _, err := eval.Infer(ctx, fresh, prog2, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := sameStored(storedDerived(t, db), storedDerived(t, fresh)); err != nil {
		t.Fatal(err)
	}
}

// TestInferImageDifferential: on the random cases, an infer from scratch
// writes an image that gives Resume's materialisation, and the update
// after it, from that image, gives the stored facts of Infer from scratch.
func TestInferImageDifferential(t *testing.T) {
	ctx := context.Background()
	seeds := 16
	if testing.Short() {
		seeds = 6
	}
	images := 0
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 49))
		withNeg := seed%2 == 1
		db, base, src := materialisedCase(t, rng, withNeg)
		if db == nil {
			continue
		}
		if !fullThenImage(t, db, testkit.MustParse(t, src), eval.Options{}) {
			db.Close()
			continue
		}
		images++
		var b store.Batch
		tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(9)), R: fmt.Sprint("e", rng.IntN(2)), O: fmt.Sprint("n", rng.IntN(9))}
		b.Graph = append(b.Graph, tr)
		var err error
		if i := slices.Index(base, tr); i >= 0 {
			base = slices.Delete(base, i, i+1)
			_, err = db.Retract(ctx, &b)
		} else {
			base = append(base, tr)
			_, err = db.Load(ctx, &b, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		prog := testkit.MustParse(t, src)
		res, err := Catchup(ctx, db, prog, eval.Options{}, CatchupOptions{Parse: parser.ParseString})
		if err != nil || res.M == nil || !res.FromImage {
			t.Fatalf("seed %d: the update after Infer: from the image %v, notes %q, %v", seed, res.FromImage, res.Notes, err)
		}
		fresh := testkit.NewStore(t, oracle.TripleTSV(base))
		if _, err := eval.Infer(ctx, fresh, prog, eval.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := sameStored(storedDerived(t, db), storedDerived(t, fresh)); err != nil {
			t.Fatalf("seed %d: the store against Infer from scratch: %v\nprogram:\n%s", seed, err, src)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if images < seeds/2 {
		t.Errorf("%d of %d infers wrote an image", images, seeds)
	}
	t.Logf("%d of %d infers wrote an image", images, seeds)
}

// TestInferImageWriteFailures: a failure at any step of the image's write
// after an infer from scratch (a full disk, or a kill that leaves the
// temporary file) leaves the derived facts stored, says so in a note, and
// leaves the old image whole, stale, or the new one (after the rename);
// the next update gives the facts of Infer from scratch.
func TestInferImageWriteFailures(t *testing.T) {
	ctx := context.Background()
	for _, kill := range []bool{false, true} {
		for n := 1; ; n++ {
			c := newImageCase(t)
			old := c.image(t)
			fs := &failFS{n: n, kill: kill}
			var notes strings.Builder
			if _, err := Infer(ctx, c.db, c.prog, eval.Options{}, InferOptions{ImageFS: fs, Notes: &notes}); err != nil {
				t.Fatal(err)
			}
			if fs.step == "" {
				if n < 5 {
					t.Fatalf("the write made %d steps", n-1)
				}
				break
			}
			t.Run(fmt.Sprintf("kill=%v/%d-%s", kill, n, fs.step), func(t *testing.T) {
				if !strings.Contains(notes.String(), "not written") {
					t.Errorf("notes %q; want one saying the image was not written", notes.String())
				}
				s, err := c.db.Image(true)
				switch {
				case err != nil || s.Corrupt != nil:
					t.Fatalf("the image after a failed write: %+v, %v", s, err)
				case fs.step == "sync dir":
					if !s.Current {
						t.Errorf("a failure after the rename: the image is not the new one")
					}
				case !bytes.Equal(c.image(t), old) || s.Current:
					t.Errorf("the old image changed or is current after the infer (%+v)", s)
				}
				res := c.update(t, nil)
				if res.FromImage != (fs.step == "sync dir") {
					t.Errorf("the next update: from the image %v, notes %q", res.FromImage, res.Notes)
				}
			})
		}
	}
}

// TestChangesListedAlike: the changed facts an update lists are the same
// whether it resumed from the stored derived facts or from the image of
// an infer from scratch, whose tuples are in another order (every change
// of this crisp closure is of the same size: the order among equals).
func TestChangesListedAlike(t *testing.T) {
	ctx := context.Background()
	prog := testkit.MustParse(t, "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n")
	var lists [2][]ChangedFact
	for i, noImage := range []bool{false, true} {
		db, err := store.Open(t.TempDir(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var tsv strings.Builder
		for i := range 20 {
			fmt.Fprintf(&tsv, "n%d\te\tn%d\nn%d\te\tn%d\n", i, i+1, i, (i*7+3)%20)
		}
		testkit.LoadTSV(t, db, tsv.String())
		if _, err := Infer(ctx, db, prog, eval.Options{}, InferOptions{}); err != nil {
			t.Fatal(err)
		}
		testkit.LoadTSV(t, db, "n20\te\tn21\n")
		res, err := Catchup(ctx, db, prog, eval.Options{}, CatchupOptions{Parse: parser.ParseString, NoImage: noImage})
		if err != nil || res.FromImage == noImage || len(res.Change.Facts) < 10 {
			t.Fatalf("no image %v: from the image %v, %d facts listed, %v", noImage, res.FromImage, len(res.Change.Facts), err)
		}
		lists[i] = res.Change.Facts
		db.Close()
	}
	for i := range lists[0] {
		if a, b := lists[0][i], lists[1][i]; a.Pred != b.Pred || !slices.Equal(a.Args, b.Args) || a.Old != b.Old || a.New != b.New {
			t.Fatalf("change %d: %v from the image, %v from the store", i, a, b)
		}
	}
}
