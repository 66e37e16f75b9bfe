package maintain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// imageCase is a store whose derived facts an update wrote, with its
// image: a 40-node chain and its weighted transitive closure.
type imageCase struct {
	db   *store.DB
	prog *datalog.Program
	edge int // the next edge to add
}

func newImageCase(t *testing.T) *imageCase {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var tsv strings.Builder
	for i := range 40 {
		fmt.Fprintf(&tsv, "n%d\te\tn%d\n", i, i+1)
	}
	testkit.LoadTSV(t, db, tsv.String())
	c := &imageCase{db: db, prog: testkit.MustParse(t, "p(X, Y) :- e(X, Y).\n0.99 :: p(X, Z) :- p(X, Y), e(Y, Z).\n"), edge: 40}
	if _, err := eval.Infer(context.Background(), db, c.prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	c.update(t, nil) // the first update writes the image
	return c
}

// update loads the next edge and brings the derived facts up to date
// through Catchup, writing the image through fs; it checks the stored
// facts against Infer from scratch.
func (c *imageCase) update(t *testing.T, fs store.ImageFS) CatchupResult {
	t.Helper()
	ctx := context.Background()
	testkit.LoadTSV(t, c.db, fmt.Sprintf("n%d\te\tn%d\n", c.edge, c.edge+1))
	c.edge++
	res, err := Catchup(ctx, c.db, c.prog, eval.Options{}, CatchupOptions{Parse: parser.ParseString, ImageFS: fs})
	if err != nil || res.Recompute || res.M == nil {
		t.Fatalf("update: %+v, %v", res, err)
	}
	var tsv strings.Builder
	for i := range c.edge {
		fmt.Fprintf(&tsv, "n%d\te\tn%d\n", i, i+1)
	}
	fresh := testkit.NewStore(t, tsv.String())
	if _, err := eval.Infer(ctx, fresh, c.prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := sameStored(storedDerived(t, c.db), storedDerived(t, fresh)); err != nil {
		t.Fatalf("after the update (from image %v, notes %q): %v", res.FromImage, res.Notes, err)
	}
	return res
}

// image returns the bytes of the store's image, nil when it has none.
func (c *imageCase) image(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.db.Dir(), store.ImageFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestImageNotes: an update reads the image the previous one wrote; a
// stale image (the store changed behind it) or a corrupt one (a byte
// flipped in its header, its data or its checksum) is not used, with a
// note, and the update, read from the store, writes a current image.
func TestImageNotes(t *testing.T) {
	c := newImageCase(t)
	if res := c.update(t, nil); !res.FromImage || len(res.Notes) > 0 {
		t.Fatalf("the next update: from image %v, notes %q; want from the image, no note", res.FromImage, res.Notes)
	}
	old := c.image(t)
	c.update(t, nil)
	path := filepath.Join(c.db.Dir(), store.ImageFile)
	for _, tc := range []struct {
		name string
		at   int // the byte flipped; -1: the older image, intact
		note string
	}{
		{"stale", -1, "stale"},
		{"header", 20, "stale"}, // the derived generation: the header no longer names the store's
		{"magic", 0, "corrupt"},
		{"data", len(old) / 2, "corrupt"},
		{"checksum", len(old) - 1, "corrupt"},
		{"length", len(old) - 6, "corrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(old)
			if tc.at >= 0 {
				b = c.image(t)
				b[tc.at] ^= 0x10
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.note == "corrupt" {
				s, err := c.db.Image(true)
				if err != nil || s.Corrupt == nil {
					t.Errorf("Image(true) of a corrupt image: %+v, %v; want Corrupt", s, err)
				}
			}
			res := c.update(t, nil)
			if res.FromImage || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], tc.note) {
				t.Fatalf("from image %v, notes %q; want the store read, a note saying %s", res.FromImage, res.Notes, tc.note)
			}
			s, err := c.db.Image(true)
			if err != nil || !s.Current || s.Corrupt != nil {
				t.Fatalf("the image after the update: %+v, %v; want current", s, err)
			}
		})
	}
}

// failFS is the operating system's file system failing at one step of an
// image's write: its n-th call (counting CreateTemp, each Write, Sync,
// Close, Rename and SyncDir), as a full disk or a crash would; with kill
// set it leaves its temporary file behind, as a killed process does.
type failFS struct {
	store.OSImageFS
	n, calls int
	kill     bool
	step     string
}

var errInjected = errors.New("injected failure")

func (f *failFS) fail(step string) error {
	f.calls++
	if f.calls == f.n {
		f.step = step
		return errInjected
	}
	return nil
}

func (f *failFS) CreateTemp(dir, pattern string) (store.ImageTemp, error) {
	if err := f.fail("create"); err != nil {
		return nil, err
	}
	t, err := f.OSImageFS.CreateTemp(dir, pattern)
	return &failTemp{ImageTemp: t, fs: f}, err
}

func (f *failFS) Rename(oldpath, newpath string) error {
	if err := f.fail("rename"); err != nil {
		return err
	}
	return f.OSImageFS.Rename(oldpath, newpath)
}

func (f *failFS) SyncDir(dir string) error {
	if err := f.fail("sync dir"); err != nil {
		return err
	}
	return f.OSImageFS.SyncDir(dir)
}

func (f *failFS) Remove(name string) error {
	if f.kill && f.step != "" {
		return nil // killed: nothing cleans up
	}
	return f.OSImageFS.Remove(name)
}

type failTemp struct {
	store.ImageTemp
	fs *failFS
}

func (t *failTemp) Write(b []byte) (int, error) {
	if err := t.fs.fail("write"); err != nil {
		return len(b) / 2, err
	}
	return t.ImageTemp.Write(b)
}

func (t *failTemp) Sync() error {
	if err := t.fs.fail("sync"); err != nil {
		return err
	}
	return t.ImageTemp.Sync()
}

func (t *failTemp) Close() error {
	if err := t.fs.fail("close"); err != nil {
		t.ImageTemp.Close()
		return err
	}
	return t.ImageTemp.Close()
}

// TestImageWriteFailures injects a failure (a full disk, or a kill that
// leaves the temporary file) at every step of an image's write: the
// update still succeeds, says the image was not written, and leaves the
// old image whole or the new one (a failure after the rename), never a
// mix; the next update gives the facts of Infer from scratch and a
// current image, and no temporary file is left.
func TestImageWriteFailures(t *testing.T) {
	for _, kill := range []bool{false, true} {
		for n := 1; ; n++ {
			c := newImageCase(t)
			old := c.image(t)
			fs := &failFS{n: n, kill: kill}
			res := c.update(t, fs)
			if fs.step == "" {
				if n < 5 {
					t.Fatalf("the write made %d steps", n-1)
				}
				break // every step has failed once
			}
			t.Run(fmt.Sprintf("kill=%v/%d-%s", kill, n, fs.step), func(t *testing.T) {
				if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not written") {
					t.Errorf("notes %q; want one saying the image was not written", res.Notes)
				}
				tmp, _ := filepath.Glob(filepath.Join(c.db.Dir(), ".image-*"))
				if !kill && len(tmp) > 0 {
					t.Errorf("temporary files left by a failed write: %q", tmp)
				}
				now := c.image(t)
				s, err := c.db.Image(true)
				switch {
				case err != nil || s.Corrupt != nil:
					t.Fatalf("the image after a failed write: %+v, %v", s, err)
				case fs.step == "sync dir":
					if !s.Current {
						t.Errorf("a failure after the rename: the image is not the new one")
					}
				case !bytes.Equal(now, old):
					t.Errorf("the old image changed (%d bytes, was %d)", len(now), len(old))
				}
				next := c.update(t, nil)
				if s, err := c.db.Image(true); err != nil || !s.Current {
					t.Errorf("after the next update: %+v, %v; want a current image", s, err)
				}
				if fs.step == "sync dir" && !next.FromImage {
					t.Errorf("the next update did not read the image renamed in place")
				}
				tmp, _ = filepath.Glob(filepath.Join(c.db.Dir(), ".image-*"))
				if len(tmp) > 0 {
					t.Errorf("temporary files left after the next update: %q", tmp)
				}
			})
		}
	}
}

// countingStore counts the facts read from a store.
type countingStore struct {
	store.Store
	base, derived int
}

func (s *countingStore) Scan(rel store.ID) iter.Seq2[store.Fact, error] {
	return func(yield func(store.Fact, error) bool) {
		for f, err := range s.Store.Scan(rel) {
			s.base++
			if !yield(f, err) {
				return
			}
		}
	}
}

func (s *countingStore) ScanDerived(rel store.ID) iter.Seq2[store.Derived, error] {
	return func(yield func(store.Derived, error) bool) {
		for d, err := range s.Store.ScanDerived(rel) {
			s.derived++
			if !yield(d, err) {
				return
			}
		}
	}
}

// TestImageReadsNoFact: resuming from an image reads no fact from the
// store, base or derived (Resume reads them all), and gives Resume's
// materialisation.
func TestImageReadsNoFact(t *testing.T) {
	c := newImageCase(t)
	ctx := context.Background()
	ms, err := c.db.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	prog, min, err := DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) { return parser.ParseString("record", src) })
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.OpenImage(c.db.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cs := &countingStore{Store: c.db}
	m, err := ResumeImage(ctx, cs, r, prog, min, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cs.base+cs.derived > 0 {
		t.Errorf("resuming from the image read %d base and %d derived facts, want none", cs.base, cs.derived)
	}
	cs = &countingStore{Store: c.db}
	want, err := Resume(ctx, cs, prog, min, nil, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cs.base == 0 || cs.derived == 0 {
		t.Errorf("Resume read %d base and %d derived facts: the counting is broken", cs.base, cs.derived)
	}
	if err := sameResumed(t, m, want); err != nil {
		t.Error(err)
	}
}

// TestAddBuildsNoRev: an update that only adds facts builds no reverse
// index of the proofs (it is built when a confidence first falls), and
// one that removes a fact does.
func TestAddBuildsNoRev(t *testing.T) {
	c := newImageCase(t)
	res := c.update(t, nil) // adds an edge
	if res.M.rev.built {
		t.Error("an update that only added facts built the reverse index")
	}
	var b store.Batch
	b.Graph = append(b.Graph, store.NamedTriple{S: "n0", R: "e", O: "n1"})
	if _, err := c.db.Retract(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	res, err := Catchup(context.Background(), c.db, c.prog, eval.Options{}, CatchupOptions{Parse: parser.ParseString})
	if err != nil || res.M == nil {
		t.Fatalf("removal: %+v, %v", res, err)
	}
	if !res.M.rev.built {
		t.Error("an update that removed a fact built no reverse index")
	}
}
