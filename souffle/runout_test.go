package souffle

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestRunOutputOrder checks that an output file's lines are the
// relation's formatted tuples sorted as bytes, whichever way the runner
// sorts them: through packed keys (the values hold no byte at or below
// '\n'; here values that are prefixes of others, and a byte above the
// tab), or through the lines themselves (a value holds \x01, below the
// tab: a key would order "a\x01" after "a", the line before), with
// -j 1 and -j 4 alike, and with --confidence.
func TestRunOutputOrder(t *testing.T) {
	keyed := []string{"a\tz", "a!\tb", "ab\ta", "a b\tc", "aa\ta", "a\ta", "b\t10", "b\t9", "b\t1", "10\tb"}
	lined := []string{"a\tq", "a\x01\tq", "a\x01b\tq", "a\x05\tr", "ab\t\x02", "ab\t!"}
	prog := `.decl in1(x: symbol, y: symbol)
.input in1
.decl in2(x: symbol, y: symbol)
.input in2
.decl out1(x: symbol, y: symbol)
.output out1
.decl out2(x: symbol, y: symbol)
.output out2
.printsize out2
out1(x, y) :- in1(x, y).
out2(x, y) :- in2(x, y).
`
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl":         prog,
		"facts/in1.facts": strings.Join(keyed, "\n") + "\n",
		"facts/in2.facts": strings.Join(lined, "\n") + "\n",
	})
	sorted := func(ls []string, suffix string) string {
		var out []string
		for _, l := range ls {
			out = append(out, l+suffix+"\n")
		}
		slices.Sort(out)
		return strings.Join(out, "")
	}
	for _, cfg := range []Config{{Jobs: 1}, {Jobs: 4}, {Jobs: 2, Confidence: true}} {
		suffix := ""
		if cfg.Confidence {
			suffix = "\t1"
		}
		stdout, err := runIn(t, dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("out2\t%d\n", len(lined)); stdout != want {
			t.Errorf("%+v: stdout %q, want %q", cfg, stdout, want)
		}
		for name, ls := range map[string][]string{"out1.csv": keyed, "out2.csv": lined} {
			if got, want := readOut(t, filepath.Join(dir, "out", name)), sorted(ls, suffix); got != want {
				t.Errorf("%+v: %s =\n%q, want\n%q", cfg, name, got, want)
			}
		}
	}
}

// TestRunAllocationPerFact bounds what `drumql run` allocates per derived
// fact, over the whole run (reading, evaluating, sorting and writing), on
// the transitive closure of a path of 400 nodes (79,800 facts): the
// evaluator's columns and buffers and 8 bytes a tuple for the sort. A
// store of the derived facts (a store.Mem entry per fact with its own
// copies of the names and a proof: about 240 bytes) or a string per
// output line breaks it.
func TestRunAllocationPerFact(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 80,000 facts")
	}
	const n = 400
	var edges strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&edges, "n%d\tn%d\n", i, i+1)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl": `.decl edge(x: symbol, y: symbol)
.input edge
.decl tc(x: symbol, y: symbol)
.output tc
.printsize tc
tc(x, y) :- edge(x, y).
tc(x, z) :- tc(x, y), edge(y, z).
`,
		"facts/edge.facts": edges.String(),
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stdout, err := runIn(t, dir, Config{Jobs: 2})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	facts := n * (n - 1) / 2
	if want := fmt.Sprintf("tc\t%d\n", facts); stdout != want {
		t.Fatalf("stdout %q, want %q", stdout, want)
	}
	if st, err := os.Stat(filepath.Join(dir, "out", "tc.csv")); err != nil || st.Size() < int64(facts)*8 {
		t.Fatalf("tc.csv: %v, %v", st, err)
	}
	perFact := float64(after.TotalAlloc-before.TotalAlloc) / float64(facts)
	t.Logf("%.0f bytes allocated per derived fact", perFact)
	if perFact > 400 {
		t.Errorf("%.0f bytes allocated per derived fact, want at most 400", perFact)
	}
}

// TestRunOutputEqualValues checks the sort through keys when two symbols
// print alike ("1.0" and "1" in a float column, as a store may hold
// them): they rank as one value, so that the tuples sort by their next
// column, as their lines do, not by which symbol they hold.
func TestRunOutputEqualValues(t *testing.T) {
	ctx := context.Background()
	p, prog, err := Read("p.dl", []byte(".decl in(x: float, y: symbol)\n.output in\n"))
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	_, err = st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{
		{S: "1.0", R: "in", O: "a"}, {S: "1", R: "in", O: "b"}, {S: "1.0", R: "in", O: "c"}, {S: "1", R: "in", O: "d"},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := reasoner.Evaluate(ctx, st, prog, reasoner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.sorted(v, "in", p.Decls["in"], false)
	if err != nil {
		t.Fatal(err)
	}
	if out.tab == nil {
		t.Fatal("sorted through lines, not keys")
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if err := out.writeLines(w, "\t"); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if got, want := b.String(), "1\ta\n1\tb\n1\tc\n1\td\n"; got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
}
