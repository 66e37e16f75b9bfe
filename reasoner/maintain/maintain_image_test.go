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

// proofsOf returns each live derived fact of a resumed materialisation
// (numbered as Resume numbers it: rule positions of the program) with its
// proof: the rule's position, or the program fact, and the body facts.
func proofsOf(t testing.TB, m *Materialisation) map[string]string {
	t.Helper()
	e := m.e
	name := func(ri int32, tu int32) string {
		r := e.Rels[ri]
		var args []string
		for _, a := range r.Tuple(tu) {
			n, err := e.Syms.Name(a)
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, n)
		}
		return r.Name + "(" + strings.Join(args, ",") + ")"
	}
	out := map[string]string{}
	for ri, r := range e.Rels {
		if r.Internal {
			continue
		}
		for tu := range int32(r.Len()) {
			p, c := r.ProvAt(tu), r.ConfAt(tu)
			if c == 0 || p == eval.ProvBase || p == eval.ProvDeleted {
				continue
			}
			if p < 0 {
				out[name(int32(ri), tu)] = fmt.Sprint("fact ", p)
				continue
			}
			ci := e.Pool.Rule(p)
			rule := e.Rules[ci]
			_, refs := e.Pool.Record(p, rule.Nprov)
			proof := fmt.Sprint("rule ", m.main[ci])
			for j := range rule.Nprov {
				if refs[2*j] != eval.NoMatch {
					proof += " " + name(int32(refs[2*j]), int32(refs[2*j+1]))
				}
			}
			out[name(int32(ri), tu)] = proof
		}
	}
	return out
}

// resumeBoth resumes the materialisation of db's record from its derived
// facts (Resume) and from its image (ResumeImage, which must be current).
func resumeBoth(t *testing.T, db *store.DB) (fromStore, fromImg *Materialisation) {
	t.Helper()
	ctx := context.Background()
	ms, err := db.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	prog, min, err := DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) { return parser.ParseString("record", src) })
	if err != nil {
		t.Fatal(err)
	}
	changes := make([]FactChange, len(ms.Changes))
	for i, ch := range ms.Changes {
		changes[i] = FactChange{Fact: ch.Fact, Added: ch.Added}
	}
	fromStore, err = Resume(ctx, db, prog, min, changes, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, note, err := fromImage(ctx, db, ms, prog, min, eval.Options{})
	if err != nil || m == nil {
		t.Fatalf("no materialisation from the image: %q, %v", note, err)
	}
	return fromStore, m
}

// sameResumed compares two resumed materialisations: the same derived
// facts, confidences (within 1e-12: Resume computes them again) and
// proofs.
func sameResumed(t *testing.T, got, want *Materialisation) error {
	if err := sameDerived(derivedOf(t, got), derivedOf(t, want)); err != nil {
		return err
	}
	gp, wp := proofsOf(t, got), proofsOf(t, want)
	for f, p := range wp {
		if gp[f] != p {
			return fmt.Errorf("%s: proof %q, want %q", f, gp[f], p)
		}
	}
	if len(gp) != len(wp) {
		return fmt.Errorf("%d proofs, want %d", len(gp), len(wp))
	}
	return checkProofs(got)
}

// TestImageDifferential: updates through Catchup on a Badger store, each
// one from the image the previous one wrote: the materialisation read from
// the image has the facts, confidences and proofs of the one Resume reads
// from the store, and every update gives the stored facts of Infer from
// scratch (the random cases and edits of TestMaintainStoreDifferential).
func TestImageDifferential(t *testing.T) {
	ctx := context.Background()
	seeds := 24
	if testing.Short() {
		seeds = 8
	}
	images, fromImg := 0, 0
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 17))
		withNeg := seed%2 == 1
		db, base, src := materialisedCase(t, rng, withNeg)
		if db == nil {
			continue
		}
		var err error
		for step := range 6 {
			var b store.Batch
			newBase, newSrc := slices.Clone(base), src
			if rng.IntN(3) == 0 {
				newSrc = mutateProgram(rng, src, withNeg)
				if datalog.Validate(testkit.MustParse(t, newSrc)).HasErrors() {
					continue
				}
			} else {
				tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(9)), R: fmt.Sprint("e", rng.IntN(2)), O: fmt.Sprint("n", rng.IntN(9))}
				b.Graph = append(b.Graph, tr)
				if i := slices.Index(newBase, tr); i >= 0 {
					newBase = slices.Delete(newBase, i, i+1)
					_, err = db.Retract(ctx, &b)
				} else {
					newBase = append(newBase, tr)
					_, err = db.Load(ctx, &b, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if step > 0 {
				if _, err := os.Stat(filepath.Join(db.Dir(), store.ImageFile)); err == nil {
					if s, err := db.Image(true); err == nil && s.Current {
						fs, fi := resumeBoth(t, db)
						if err := sameResumed(t, fi, fs); err != nil {
							t.Fatalf("seed %d step %d: from the image against from the store: %v\nprogram:\n%s", seed, step, err, src)
						}
						images++
					}
				}
			}
			base, src = newBase, newSrc
			prog := testkit.MustParse(t, src)
			res, err := Catchup(ctx, db, prog, eval.Options{}, CatchupOptions{Parse: parser.ParseString})
			if err != nil {
				t.Fatal(err)
			}
			if res.FromImage {
				fromImg++
			}
			if res.Recompute {
				if _, err := eval.Infer(ctx, db, prog, eval.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			fresh := testkit.NewStore(t, oracle.TripleTSV(base))
			if _, err := eval.Infer(ctx, fresh, prog, eval.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := sameStored(storedDerived(t, db), storedDerived(t, fresh)); err != nil {
				t.Fatalf("seed %d step %d (from image %v, notes %q): the store against Infer from scratch:\n%v\nprogram:\n%s", seed, step, res.FromImage, res.Notes, err, src)
			}
			if res.M != nil {
				if err := sameDerived(derivedOf(t, res.M), oracleDerived(t, base, prog, res.M.Min())); err != nil {
					t.Fatalf("seed %d step %d (from image %v): the materialisation against the oracle: %v", seed, step, res.FromImage, err)
				}
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if images < seeds || fromImg < seeds {
		t.Errorf("%d materialisations from an image compared with Resume's, %d updates from an image; want at least %d each", images, fromImg, seeds)
	}
	t.Logf("%d materialisations from an image compared with Resume's, %d updates from an image", images, fromImg)
}

// A proof an image cannot hold (by a rule the program lacks) is found as
// the records are written: writeImage fails with errNoImage, leaving no
// temporary file and the current image as it was.
func TestImageWriteRefusesRecord(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testkit.LoadTSV(t, db, "a\te\tb\nb\te\tc\nc\te\td\n")
	prog := testkit.MustParse(t, "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n")
	if !fullThenImage(t, db, prog, eval.Options{}) {
		t.Fatal("Infer wrote no current image")
	}
	img := filepath.Join(db.Dir(), store.ImageFile)
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := resumeBoth(t, db)
	none := make([]int32, len(m.e.Rules)) // no compiled rule is the program's
	for i := range none {
		none[i] = -1
	}
	err = writeImage(db, nil, sizeOf(m.prog), m.e.Derived, func() (*imageSrc, error) {
		return imageStateOf(m.e, none, func(int, int) bool { return true })
	})
	if !errors.Is(err, errNoImage) {
		t.Fatalf("writing proofs by rules the program lacks: %v, want errNoImage", err)
	}
	if after, err := os.ReadFile(img); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the image changed (%v)", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(db.Dir(), ".image-*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
