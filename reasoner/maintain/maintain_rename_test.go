package maintain

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// renameCounter is a store that records the renames of each update.
type renameCounter struct {
	store.Store
	renames []int
}

func (s *renameCounter) UpdateDerived(ctx context.Context, u store.DerivedUpdate) error {
	s.renames = append(s.renames, len(u.Renames))
	return s.Store.UpdateDerived(ctx, u)
}

// TestRenamesOfUsedRules: removing the first line of a file moves every
// rule below it, and the update passes the store the renames of those that
// are the best proof of a fact only: here r's (the 100 rules of q_i are
// under the threshold and derive nothing). The stored proofs name the
// rules where the new file has them, as those of an infer from scratch do,
// in memory and in a Badger store.
func TestRenamesOfUsedRules(t *testing.T) {
	t.Run("mem", func(t *testing.T) { renamesOfUsedRules(t, testkit.NewStore(t, "")) })
	t.Run("badger", func(t *testing.T) {
		db, err := store.Open(t.TempDir(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		renamesOfUsedRules(t, db)
	})
}

func renamesOfUsedRules(t *testing.T, s store.Store) {
	ctx := context.Background()
	const base = "a\te\tb\nb\te\tc\n"
	testkit.LoadTSV(t, s, base)
	st := &renameCounter{Store: s}
	var tail strings.Builder
	tail.WriteString("0.5 :: r(X, Y) :- e(X, Y).\n")
	for i := range 100 {
		fmt.Fprintf(&tail, "0.05 :: q%d(X, Y) :- e(X, Y).\n", i)
	}
	src := "@min 0.1.\np(X, Y) :- e(X, Y).\n" + tail.String()
	m, _, err := Materialise(ctx, st, testkit.MustParse(t, src), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Write(ctx); err != nil {
		t.Fatal(err)
	}
	prog := testkit.MustParse(t, "@min 0.1.\n"+tail.String())
	ch, err := m.Apply(ctx, Delta{Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteUpdate(ctx, ch); err != nil {
		t.Fatal(err)
	}
	if len(st.renames) != 1 || st.renames[0] != 1 {
		t.Errorf("renames passed to the store: %v, want one update with r's only (1)", st.renames)
	}
	fresh := testkit.NewStore(t, base)
	if _, err := eval.Infer(ctx, fresh, prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	got, want := storedProofRules(t, st), storedProofRules(t, fresh)
	if !maps.Equal(got, want) {
		t.Errorf("stored proofs' rules:\n%v\nwant (infer from scratch)\n%v", got, want)
	}
}

// storedProofRules returns the store's derived facts with the rule
// reference of each one's proof.
func storedProofRules(t *testing.T, st store.Store) map[string]string {
	t.Helper()
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rs {
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			out[oracle.FactString(t, st, d.Fact)] = d.Prov.Rule
		}
	}
	if len(out) == 0 {
		t.Fatal("no derived facts")
	}
	return out
}

// TestManyRenamesInPlace: removing the first line of a file whose 4,000
// rules below it each prove a fact renames more rules than one Badger
// transaction holds (an 8 MiB memtable: 1.13 MB; the rules' references
// are 1.4 MB, their heads' names long as a mined file's are). The
// update stays in place (the store's derived generation is the same: no
// fact copied), and its stored proofs are those of an infer from scratch.
func TestManyRenamesInPlace(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(t.TempDir(), store.Options{MemTableSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const base = "a\te\tb\nb\te\tc\n"
	testkit.LoadTSV(t, db, base)
	st := &renameCounter{Store: db}
	var tail strings.Builder
	long := strings.Repeat("x", 300)
	for i := range 4000 {
		fmt.Fprintf(&tail, "0.5 :: q%d%s(X, Y) :- e(X, Y).\n", i, long)
	}
	m, _, err := Materialise(ctx, st, testkit.MustParse(t, "p(X, Y) :- e(X, Y).\n"+tail.String()), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Write(ctx); err != nil {
		t.Fatal(err)
	}
	gen, _ := db.ImageVersion()
	prog := testkit.MustParse(t, tail.String())
	ch, err := m.Apply(ctx, Delta{Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteUpdate(ctx, ch); err != nil {
		t.Fatal(err)
	}
	if len(st.renames) != 1 || st.renames[0] != 4000 {
		t.Errorf("renames passed to the store: %v, want one update with 4000", st.renames)
	}
	if after, _ := db.ImageVersion(); after != gen {
		t.Errorf("derived generation %d -> %d: the update copied the derived facts", gen, after)
	}
	if _, err := db.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := testkit.NewStore(t, base)
	if _, err := eval.Infer(ctx, fresh, prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	got, want := storedProofRules(t, db), storedProofRules(t, fresh)
	if !maps.Equal(got, want) {
		t.Errorf("stored proofs' rules: %d facts, want (infer from scratch) %d", len(got), len(want))
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %q, want %q", k, got[k], v)
				break
			}
		}
	}
}
