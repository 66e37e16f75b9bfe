package souffle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// inputProgram reads relations of arities 0 to 3 from tab-separated files.
const inputProgram = `.decl Z()
.decl U(a: symbol)
.decl E(a: symbol, b: symbol)
.decl T(a: symbol, b: symbol, c: symbol)
.input Z
.input U
.input E
.input T
`

// readProgram reads prog (the text of prog.dl in dir) and its inputs
// under dir/facts.
func readProgram(t *testing.T, dir, prog string) (*Program, *inputs) {
	t.Helper()
	path := filepath.Join(dir, "prog.dl")
	write(t, dir, map[string]string{"prog.dl": prog})
	p, _, err := Read(path, []byte(prog))
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.readInputs(context.Background(), filepath.Join(dir, "facts"))
	if err != nil {
		t.Fatal(err)
	}
	return p, in
}

// TestInputsAsStore checks that the inputs read for `drumql run` are
// what a store.Mem loaded with the same facts in file order holds, id
// for id: the same names numbered the same, the same relations, and each
// relation's facts scanned in the same order, duplicates removed.
func TestInputsAsStore(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	files := map[string][]string{"Z": {"", "", ""}}
	for rel, arity := range map[string]int{"U": 1, "E": 2, "T": 3} {
		for range 500 {
			var f []string
			for range arity {
				// names, naturals (held apart from the other names) and
				// numbers that are not canonical (names like any other)
				format := []string{"n%d", "%d", "0%d"}[rng.IntN(3)]
				f = append(f, fmt.Sprintf(format, rng.IntN(40)))
			}
			files[rel] = append(files[rel], strings.Join(f, "\t"))
		}
	}
	var b store.Batch
	for _, rel := range []string{"Z", "U", "E", "T"} { // the .input order
		write(t, dir, map[string]string{"facts/" + rel + ".facts": strings.Join(files[rel], "\n") + "\n"})
		for _, line := range files[rel] {
			var args []string
			if rel != "Z" {
				args = strings.Split(line, "\t")
			}
			b.Facts = append(b.Facts, store.NamedFact{Rel: rel, Args: args})
		}
	}
	_, in := readProgram(t, dir, inputProgram)
	mem := store.NewMemory()
	defer mem.Close()
	if _, err := mem.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
	n, _ := mem.NumSymbols()
	if got, _ := in.NumSymbols(); got != n {
		t.Fatalf("%d symbols, the store has %d", got, n)
	}
	for id := range store.ID(n) {
		want, _ := mem.Name(id)
		if got, _ := in.Name(id); got != want {
			t.Fatalf("name of %d: %q, the store's %q", id, got, want)
		}
		if got, ok, _ := in.Lookup(want); !ok || got != id {
			t.Fatalf("Lookup(%q) = %d, %v; want %d", want, got, ok, id)
		}
	}
	for _, name := range []string{"40", "n40", "040", "12345678", "x"} {
		if _, ok, _ := in.Lookup(name); ok {
			t.Errorf("Lookup(%q) found a name never read", name)
		}
	}
	wantRels, _ := mem.Relations()
	gotRels, _ := in.Relations()
	if !slices.Equal(gotRels, wantRels) {
		t.Fatalf("relations %v, the store's %v", gotRels, wantRels)
	}
	for _, r := range wantRels {
		var want, got [][]store.ID
		for f, err := range mem.Scan(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, f.Args)
		}
		for f, err := range in.Scan(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, slices.Clone(f.Args))
			if ok, _ := in.Has(f); !ok {
				t.Errorf("%s%v scanned but not Has", r.Name, f.Args)
			}
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: scanned %d facts %v..., the store %d %v...", r.Name, len(got), got[:min(3, len(got))], len(want), want[:min(3, len(want))])
		}
	}
}

// TestFieldValue checks that the fields fieldValue takes as they are
// (symbols, numbers written canonically) are those value reads so.
func TestFieldValue(t *testing.T) {
	p := &Program{Types: map[string]string{}}
	for _, kind := range []string{"number", "unsigned", "symbol"} {
		c := Col{Name: "x", Type: kind}
		for _, s := range []string{"0", "7", "007", "00", "-3", "-0", "12345678901234567", "123456789012345678",
			"1234567890123456789", "99999999999999999999", " 5", "5 ", "0x1f", "0b101", "1.0", "1e3", "5u", "", "a", "-"} {
			want, werr := p.value(c, s)
			got, _, gerr := p.fieldValue(c, kind, []byte(s))
			if (werr == nil) != (gerr == nil) || string(got) != want {
				t.Errorf("%s %q: fieldValue %q, %v; value %q, %v", kind, s, got, gerr, want, werr)
			}
		}
	}
}

// TestRadixSort checks radixSort and compactTuples against slices.Sort
// and slices.Compact, on tuples of arity 1 and 2.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 100, 255, 256, 5000} {
		for _, mask := range []uint64{1<<17 - 1, 1<<40 - 1, ^uint64(0), 0xff00ff0000, 0xff} {
			for a := 1; a <= 2; a++ {
				keys := make([]uint64, n)
				ids := make([]store.ID, a*n)
				for i := range keys {
					k := rng.Uint64() & mask
					if a == 1 {
						k &= 1<<32 - 1
						ids[i] = store.ID(k)
					} else {
						ids[2*i], ids[2*i+1] = store.ID(k>>32), store.ID(k)
					}
					keys[i] = k
				}
				want := slices.Compact(slices.Sorted(slices.Values(keys)))
				got := compactTuples(radixSort(ids, a), a)
				if len(got) != a*len(want) {
					t.Fatalf("n %d, mask %x, arity %d: %d tuples, want %d", n, mask, a, len(got)/a, len(want))
				}
				for i, k := range want {
					if a == 1 && got[i] != store.ID(k) || a == 2 && (got[2*i] != store.ID(k>>32) || got[2*i+1] != store.ID(k)) {
						t.Fatalf("n %d, mask %x, arity %d: tuple %d wrong", n, mask, a, i)
					}
				}
			}
		}
	}
}

// TestInputAllocsPerFact bounds the allocations of reading input facts:
// once a name is known, a fact costs no allocation (its fields are
// interned from the line read, its ids appended to a column), so reading
// 40,000 edges between 300 nodes allocates for the names and the columns'
// growth, not per fact. Reading the facts into a store.Mem allocated a
// slice of names, its strings and the store's keys for every fact.
func TestInputAllocsPerFact(t *testing.T) {
	dir := t.TempDir()
	const facts = 40000
	var b strings.Builder
	rng := rand.New(rand.NewPCG(5, 6))
	for range facts {
		fmt.Fprintf(&b, "%d\tv%d\n", rng.IntN(300), rng.IntN(300))
	}
	prog := ".decl e(x: number, y: symbol)\n.input e\n"
	write(t, dir, map[string]string{"facts/e.facts": b.String()})
	p, in := readProgram(t, dir, prog)
	if got, _ := in.Count(0); got == 0 || got > facts {
		t.Fatalf("%d facts read", got)
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := p.readInputs(context.Background(), filepath.Join(dir, "facts")); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations for %d facts", allocs, facts)
	if perFact := allocs / facts; perFact > 0.05 {
		t.Errorf("%.0f allocations for %d facts: %.3f a fact, want at most 0.05", allocs, facts, perFact)
	}
}

// TestInputBytes bounds the bytes reading input facts allocates: 200,000
// edges between 20,000 numbered nodes fill a column sized from the file's
// size once (not grown a quarter at a time, which copied it five times
// over), sorted with one buffer of its size, and name their nodes without
// a map; 3 column sizes and the names' strings and table leave room for
// an estimate a sixteenth too large.
func TestInputBytes(t *testing.T) {
	dir := t.TempDir()
	const facts, nodes = 200000, 20000
	var b strings.Builder
	rng := rand.New(rand.NewPCG(7, 8))
	for range facts {
		fmt.Fprintf(&b, "%d\t%d\n", rng.IntN(nodes), rng.IntN(nodes))
	}
	prog := ".decl e(x: number, y: number)\n.input e\n"
	write(t, dir, map[string]string{"facts/e.facts": b.String()})
	p, _ := readProgram(t, dir, prog)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := p.readInputs(context.Background(), filepath.Join(dir, "facts")); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	column := uint64(facts * 2 * 4)
	names := uint64(nodes * 64) // strings, their headers grown by doubling, nums
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes allocated for a column of %d bytes", got, column)
	if want := 3*column + names + 1<<17; got > want {
		t.Errorf("reading %d facts allocated %d bytes, want at most %d", facts, got, want)
	}
}

// TestRunInputNames checks that a field the store would refuse as a name
// is an error at its file, line and column, and that nothing is written.
func TestRunInputNames(t *testing.T) {
	prog := ".decl In(a: symbol, b: symbol)\n.input In\n.decl Out(a: symbol)\n.output Out\nOut(a) :- In(a, _).\n"
	for name, c := range map[string]struct{ facts, want string }{
		"empty":  {"a\tb\nc\t\n", "In.facts:2:3: error: store: bad name: an empty name"},
		"utf8":   {"a\t\xff\n", "In.facts:1:3: error: store: bad name: invalid UTF-8"},
		"nul":    {"a\tb\n\x00x\tb\n", "In.facts:2:1: error: store: bad name: a NUL byte"},
		"fields": {"a\tb\tc\n", "In.facts:1:1: error: 3 fields, but In has 2 attributes"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"prog.dl": prog, "facts/In.facts": c.facts})
			_, err := runIn(t, dir, Config{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) > 0 {
				t.Errorf("%d files written", len(ents))
			}
		})
	}
}

// TestCollectAt checks that the collector's target changes once the live
// heap is large, not before, halves once it is huge, and is restored when
// the run ends.
func TestCollectAt(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	stop := collectAt(30)
	runtime.GC()
	time.Sleep(100 * time.Millisecond)
	if p := percent(); p != 100 {
		t.Fatalf("target %d on a small heap, want 100", p)
	}
	big := make([]uint64, LargeHeap/8+1<<20)
	runtime.GC()
	for deadline := time.Now().Add(5 * time.Second); percent() != 30; {
		if time.Now().After(deadline) {
			t.Fatalf("target %d with %d MB live, want 30", percent(), len(big)*8>>20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	huge := make([]uint64, HugeHeap/8)
	runtime.GC()
	for deadline := time.Now().Add(5 * time.Second); percent() != 15; {
		if time.Now().After(deadline) {
			t.Fatalf("target %d with %d MB live, want 15", percent(), (len(big)+len(huge))*8>>20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	runtime.KeepAlive(big)
	runtime.KeepAlive(huge)
	if p := percent(); p != 100 {
		t.Fatalf("target %d after stop, want 100", p)
	}
}

// TestCollectLate checks that collectLate turns the collector off under
// a memory limit of 64 MiB and three times the inputs' size, keeps a
// lower limit set before, and restores both.
func TestCollectLate(t *testing.T) {
	prevPercent, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(1<<40)
	defer func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) }()
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	for _, c := range []struct{ before, size, want int64 }{{1 << 40, 1 << 20, 64<<20 + 3<<20}, {32 << 20, 1 << 20, 32 << 20}} {
		debug.SetMemoryLimit(c.before)
		restore := collectLate(c.size)
		if p, l := percent(), debug.SetMemoryLimit(-1); p != -1 || l != c.want {
			t.Errorf("limit %d before, inputs of %d bytes: target %d, limit %d; want -1, %d", c.before, c.size, p, l, c.want)
		}
		restore()
		if p, l := percent(), debug.SetMemoryLimit(-1); p != 100 || l != c.before {
			t.Errorf("restored: target %d, limit %d; want 100, %d", p, l, c.before)
		}
	}
	// A heap that reaches three quarters of the limit has the collector
	// back before restore.
	debug.SetMemoryLimit(1 << 40)
	restore := collectLate(0)
	big := make([]byte, 56<<20)
	for i := range big {
		big[i] = 1
	}
	for deadline := time.Now().Add(5 * time.Second); percent() != 100; {
		if time.Now().After(deadline) {
			t.Fatalf("target %d with %d MB allocated under a limit of 64 MiB, want 100", percent(), len(big)>>20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<40 {
		t.Errorf("limit %d once the heap is large, want the one before", l)
	}
	restore()
	runtime.KeepAlive(big)
}

// TestRunChoiceInput checks choice domains on inputs: in file order, a
// fact whose key a fact kept before has is left out, for each key.
func TestRunChoiceInput(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl":        ".decl In(a: symbol, b: number, c: symbol) choice-domain a, (b, c)\n.input In\n.output In\n",
		"facts/In.facts": "x\t1\tp\nx\t2\tq\ny\t1\tp\ny\t1\tq\nz\t007\tq\nw\t7\tq\n",
	})
	for _, jobs := range []int{1, 2} {
		if _, err := runIn(t, dir, Config{Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		if got, want := readOut(t, filepath.Join(dir, "out", "In.csv")), "x\t1\tp\ny\t1\tq\nz\t7\tq\n"; got != want {
			t.Errorf("-j %d: In.csv %q, want %q", jobs, got, want)
		}
	}
}

// TestInputsReleased checks that Run's evaluation drops the tuples of an
// input relation its rules read once the evaluator holds them, not those
// of an input only written out, and that the outputs are the same: both
// relations written whole, the rule's tuples derived.
func TestInputsReleased(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"facts/e.facts": "1\t2\n2\t3\n3\t4\n",
		"facts/k.facts": "a\nb\n",
	})
	src := ".decl e(x: number, y: number)\n.input e\n.output e\n.decl k(x: symbol)\n.input k\n.output k\n" +
		".decl r(x: number)\n.output r\nr(Y) :- e(1, Y).\nr(Y) :- r(X), e(X, Y).\n"
	p, in := readProgram(t, dir, src)
	_, prog, err := Read(filepath.Join(dir, "prog.dl"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var released []string
	v, err := reasoner.Evaluate(context.Background(), in, prog, reasoner.Options{Loaded: func(rel store.ID) {
		released = append(released, in.names[rel])
		in.release(rel)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(released, []string{"e"}) {
		t.Errorf("released %v, want [e]", released)
	}
	for rel, want := range map[string]int{"e": 3, "k": 2, "r": 3} {
		out, err := p.evaluated(context.Background(), v, false)(rel, false)
		if err != nil {
			t.Fatal(err)
		}
		if out.n != want {
			t.Errorf("%s: %d tuples written, want %d", rel, out.n, want)
		}
	}
	id, _, _ := in.Lookup("e")
	if _, err := in.Has(store.Fact{Rel: id, Args: []store.ID{0, 0}}); err == nil {
		t.Error("the released e answers Has")
	}
}
