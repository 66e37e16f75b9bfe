package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// Environment of the helper process in mode "op".
const (
	helperOpEnv    = "DRUMQL_STORE_HELPER_OP"    // the write to make (runOp)
	helperCrashEnv = "DRUMQL_STORE_HELPER_CRASH" // step:n, where it kills itself
)

// crashAt makes the process kill itself (SIGKILL on Unix: no deferred
// calls, no Close) the n-th time a write reaches step, given as "step:n".
func crashAt(at string) {
	step, n := splitAt(at)
	seen := 0
	stepHook = func(s string) {
		if s != step {
			return
		}
		if seen++; seen == n {
			fmt.Println("KILLED AT", at)
			p, _ := os.FindProcess(os.Getpid())
			p.Kill()
			select {}
		}
	}
}

// crashOp is a write the crash tests interrupt, on the store of
// prepareMaterial.
type crashOp struct {
	// setup, if not nil, changes the prepared store in dir before the
	// write (in this process).
	setup func(t *testing.T, dir string)
	// run makes the write on the store opened after setup.
	run func(db *DB) error
	// unchanged: the store after the write is the prepared one.
	unchanged bool
}

// The writes the crash tests interrupt.
var crashOps = map[string]crashOp{
	// Fits in one transaction.
	"update-small": {run: func(db *DB) error { return db.UpdateDerived(context.Background(), smallCrashUpdate()) }},
	// Fits in one transaction, with a record written before it.
	"update-record": {run: func(db *DB) error {
		u := smallCrashUpdate()
		u.Program = []byte(strings.Repeat("new record ", recordPart/5))
		return db.UpdateDerived(context.Background(), u)
	}},
	// Fits in one transaction but for its renames: a rule table of
	// its own first.
	"update-renames": {run: func(db *DB) error {
		u := smallCrashUpdate()
		u.Renames = map[string]string{}
		for i := range 3 {
			u.Renames[fmt.Sprint("old", i)] = fmt.Sprint("moved ", i, strings.Repeat(" old", 25000))
		}
		db.txnSize = 200 << 10
		return db.UpdateDerived(context.Background(), u)
	}},
	// Does not fit, but the layer over the visible generation, with
	// it, holds at most a quarter of the facts: a new layer.
	"update-layer": {run: func(db *DB) error {
		db.txnCount = 500
		return db.UpdateDerived(context.Background(), DerivedUpdate{
			Program: []byte("new record"),
			Put:     derivedFactsOf(3, 20500, 2990, "layer2"),
			Delete:  []Fact{{Rel: 3, Args: []ID{5, 5}}, {Rel: 3, Args: []ID{19001, 1}}, {Rel: 3, Args: []ID{3, 3}}},
		})
	}},
	// Does not fit: a new generation.
	"update-large": {run: func(db *DB) error {
		return db.UpdateDerived(context.Background(), DerivedUpdate{
			Program: []byte("new record"),
			Put:     derivedFactsOf(3, 15000, 30000, "large"),
			Delete:  []Fact{{Rel: 3, Args: []ID{0, 0}}, {Rel: 3, Args: []ID{1, 1}}, {Rel: 3, Args: []ID{2, 3}}},
		})
	}},
	"retract": {run: func(db *DB) error {
		b := syntheticBatch(30000, "m")
		_, err := db.Retract(context.Background(), &Batch{Graph: b.Graph[5:25000], Facts: b.Facts[:100]})
		return err
	}},
	"load": {run: func(db *DB) error {
		_, err := db.Load(context.Background(), syntheticBatch(20000, "l"), nil)
		return err
	}},
	// What infer writes.
	"replace-record": {run: func(db *DB) error {
		ds := derivedFactsOf(4, 0, 30000, "replaced")
		return db.ReplaceDerivedRecord(context.Background(), 0, []byte("replaced"), func(yield func(Derived, error) bool) {
			for _, d := range ds {
				if !yield(d, nil) {
					return
				}
			}
		})
	}},
	// Without a record: the record and change log go too.
	"replace": {run: func(db *DB) error {
		return db.ReplaceDerived(context.Background(), derivedFactsOf(4, 0, 30000, "plain"))
	}},
	// Open rolls back a load that was interrupted after its data was
	// written (what any command that opens the store for writing does,
	// and readers too when they find it pending).
	"recover": {setup: pendingLoad, run: func(*DB) error { return nil }, unchanged: true},
}

// pendingLoad leaves in the store in dir a load interrupted after its data
// was written and synced, before its commit: the load panics there, and
// the store is closed without recovering.
func pendingLoad(t *testing.T, dir string) {
	t.Helper()
	db := mustOpen(t, dir)
	defer db.Close()
	old := stepHook
	defer func() { stepHook = old }()
	stepHook = func(s string) {
		if s == "load:written" {
			panic(s)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != "load:written" {
				t.Fatalf("the load did not stop after writing its data: %v", r)
			}
		}()
		db.Load(context.Background(), syntheticBatch(20000, "l"), nil)
	}()
}

func smallCrashUpdate() DerivedUpdate {
	return DerivedUpdate{
		Program: []byte("new record"),
		Put:     append(derivedFactsOf(3, 19990, 100, "small"), derivedFactsOf(6, 0, 5, "other")...),
		Delete:  []Fact{{Rel: 3, Args: []ID{0, 0}}, {Rel: 3, Args: []ID{1, 1}}, {Rel: 3, Args: []ID{9, 9}}},
	}
}

// runOp runs the write named op.
func runOp(db *DB, op string) error {
	o, ok := crashOps[op]
	if !ok {
		return fmt.Errorf("unknown op %q", op)
	}
	return o.run(db)
}

// prepareMaterial writes the store the crash tests start from: base
// facts, derived facts with a record, and a change log with additions and
// removals.
func prepareMaterial(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	db := mustOpen(t, dir)
	defer db.Close()
	b := syntheticBatch(30000, "m")
	if _, err := db.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	ds := derivedFactsOf(3, 0, 20000, "old")
	if err := db.ReplaceDerivedRecord(ctx, 0, []byte("old record"), func(yield func(Derived, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	// Derived facts seen through a layer (before the change log, which
	// an update with a record starts anew).
	db.txnCount = 500
	if err := db.UpdateDerived(ctx, DerivedUpdate{Program: []byte("layered record"), Put: derivedFactsOf(3, 19000, 2000, "layer"),
		Delete: []Fact{{Rel: 3, Args: []ID{3, 3}}, {Rel: 3, Args: []ID{4, 4}}}}); err != nil {
		t.Fatal(err)
	}
	if db.layer.gen == 0 {
		t.Fatal("the update wrote no layer")
	}
	if _, err := db.Load(ctx, syntheticBatch(50, "n"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Retract(ctx, &Batch{Graph: b.Graph[:10]}); err != nil {
		t.Fatal(err)
	}
}

// logicalState opens the store in dir (which recovers it), verifies it and
// renders what a user sees: symbols, relations, base and derived facts,
// splits, the record and the change log.
func logicalState(t *testing.T, dir string) string {
	t.Helper()
	db := mustOpen(t, dir)
	defer db.Close()
	if _, err := db.Verify(context.Background()); err != nil {
		t.Fatalf("verify: %v", err)
	}
	var sb strings.Builder
	n, _ := db.NumSymbols()
	fmt.Fprintln(&sb, "symbols", n)
	rels, err := db.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		fmt.Fprintln(&sb, "relation", r)
		for f, err := range db.Scan(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&sb, "fact", f)
		}
		for d, err := range db.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&sb, "derived", d)
		}
	}
	splits, _ := db.Splits()
	for _, name := range splits {
		for tr, err := range db.Split(name) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&sb, "split", name, tr)
		}
	}
	ms, err := db.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&sb, "record %x (%d bytes) overflow %v\n", sha256.Sum256(ms.Program), len(ms.Program), ms.Overflow)
	for _, c := range ms.Changes {
		fmt.Fprintln(&sb, "change", c)
	}
	return sb.String()
}

// liveKeys counts the live keys of the store in dir as Badger sees them,
// before the store's own recovery.
func liveKeys(t *testing.T, dir string) int {
	t.Helper()
	bdb := openRaw(t, dir)
	defer bdb.Close()
	n := 0
	bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	return n
}

// copyStore copies the closed store in src to a new directory.
func copyStore(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// raceDetector is whether the race detector is on (race_test.go).
var raceDetector bool

// crashCase kills the process making write op the n-th time it reaches a
// step, at = "step:n".
type crashCase struct {
	op, at    string
	committed bool // killed after the commit point
	partial   bool // killed while the write's data was on its way
}

// crashCases has a case for every step each write of crashOps reaches
// (TestKilledMaterialWrites checks that it does). Whether a case is
// committed follows from the write's protocol (see stepHook).
var crashCases = []crashCase{
	{"update-small", "update:txn:1", false, false},
	{"update-small", "update:committed:1", true, false},
	{"update-small", "update:done:1", true, false},
	{"update-record", "update:record:1", false, false},
	{"update-record", "update:txn:1", false, false},
	{"update-record", "update:committed:1", true, false},
	{"update-record", "update:done:1", true, false},
	{"update-renames", "update:rules:1", false, true},
	{"update-renames", "update:txn:1", false, true},
	{"update-renames", "update:committed:1", true, false},
	{"update-renames", "update:done:1", true, false},
	{"update-layer", "derived:allocated:1", false, false},
	{"update-layer", "update:layering:1", false, false},
	{"update-layer", "update:layered:1", false, true},
	{"update-layer", "update:txn:1", false, true},
	{"update-layer", "update:committed:1", true, false},
	{"update-layer", "update:done:1", true, false},
	{"update-large", "derived:allocated:1", false, false},
	{"update-large", "update:copying:1", false, false},
	{"update-large", "update:copying:10", false, true},
	{"update-large", "update:written:1", false, true},
	{"update-large", "derived:flipped:1", true, false},
	{"update-large", "derived:done:1", true, false},
	{"retract", "retract:pending:1", false, false},
	{"retract", "retract:undo:1", false, false},
	{"retract", "retract:deleting:11", false, true},
	{"retract", "retract:written:1", false, true},
	{"retract", "retract:committed:1", true, false},
	{"retract", "retract:done:1", true, false},
	{"load", "load:pending:1", false, false},
	{"load", "load:undo:1", false, false},
	{"load", "load:symbols:1", false, true},
	{"load", "load:writing:3", false, true},
	{"load", "load:written:1", false, true},
	{"load", "load:committed:1", true, false},
	{"load", "load:done:1", true, false},
	{"replace-record", "derived:allocated:1", false, false},
	{"replace-record", "derived:writing:1", false, false},
	{"replace-record", "derived:written:1", false, true},
	{"replace-record", "derived:flipped:1", true, false},
	{"replace-record", "derived:done:1", true, false},
	{"replace", "derived:allocated:1", false, false},
	{"replace", "derived:writing:1", false, false},
	{"replace", "derived:written:1", false, true},
	{"replace", "derived:flipped:1", true, false},
	{"replace", "derived:done:1", true, false},
	// Killed while recovering: the next Open rolls back again.
	{"recover", "rollback:undone:1", false, true},
	{"recover", "rollback:flushed:1", false, false},
	{"recover", "rollback:flattened:1", false, false},
	{"recover", "rollback:reclaimed:1", false, false},
	{"recover", "rollback:done:1", false, false},
}

// splitAt splits a crash point "step:n".
func splitAt(at string) (string, int) {
	i := strings.LastIndexByte(at, ':')
	n, err := strconv.Atoi(at[i+1:])
	if i < 0 || err != nil {
		panic("crash point " + at + ": want step:n")
	}
	return at[:i], n
}

// countSteps sets stepHook to count the steps reached, until the test
// ends.
func countSteps(t *testing.T) map[string]int {
	t.Helper()
	n := map[string]int{}
	stepHook = func(s string) { n[s]++ }
	t.Cleanup(func() { stepHook = nil })
	return n
}

// uncovered checks the crash cases against the steps each write reached
// (reached[op][step] counts them): it returns the steps that a write
// reached and no case of that write covers, and the cases whose step the
// write does not reach as often as they say.
func uncovered(cases []crashCase, reached map[string]map[string]int) []string {
	var out []string
	covered := map[[2]string]bool{}
	for _, tc := range cases {
		step, n := splitAt(tc.at)
		covered[[2]string{tc.op, step}] = true
		if got := reached[tc.op][step]; got < n {
			out = append(out, fmt.Sprintf("the case %s@%s: %s reaches %s %d times", tc.op, tc.at, tc.op, step, got))
		}
	}
	for op, steps := range reached {
		for step := range steps {
			if !covered[[2]string{op, step}] {
				out = append(out, fmt.Sprintf("%s reaches the step %s, which no crash case covers", op, step))
			}
		}
	}
	slices.Sort(out)
	return out
}

// A process killed at any step of a derived update, a retraction, a load
// that logs its changes, a replacement with or without a record, or the
// recovery of an interrupted load leaves a store that, reopened, is
// exactly as before the write (killed before its commit) or exactly as
// after it (killed after it): facts, counts, record and log. Each write is
// first made in this process, counting the steps it reaches: a step
// without a crash case fails the test, also with -short.
func TestKilledMaterialWrites(t *testing.T) {
	prepared := t.TempDir()
	prepareMaterial(t, prepared)
	before := logicalState(t, prepared)
	keysBefore := liveKeys(t, prepared)
	after := map[string]string{}
	reached := map[string]map[string]int{}
	for op, o := range crashOps {
		dir := copyStore(t, prepared)
		if o.setup != nil {
			o.setup(t, dir)
		}
		steps := countSteps(t)
		db := mustOpen(t, dir)
		if err := o.run(db); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		db.Close()
		stepHook = nil
		reached[op] = steps
		after[op] = logicalState(t, dir)
		switch {
		case o.unchanged && after[op] != before:
			t.Fatalf("%s changes the store:\n%s", op, firstDiff(before, after[op]))
		case !o.unchanged && after[op] == before:
			t.Fatalf("%s changes nothing", op)
		}
	}
	if miss := uncovered(crashCases, reached); len(miss) > 0 {
		t.Fatalf("the crash cases do not match the steps of the writes:\n%s", strings.Join(miss, "\n"))
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	if raceDetector {
		// The children would make the writes made above under the
		// detector once more each; killed, they test the protocol,
		// where it has nothing to find. They take minutes with it.
		t.Skip("kills child processes: not with the race detector")
	}
	for _, tc := range crashCases {
		t.Run(tc.op+"@"+tc.at, func(t *testing.T) {
			dir := copyStore(t, prepared)
			if setup := crashOps[tc.op].setup; setup != nil {
				setup(t, dir)
			}
			keysFrom := liveKeys(t, dir)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"=op", helperDirEnv+"="+dir, helperOpEnv+"="+tc.op, helperCrashEnv+"="+tc.at)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !strings.Contains(string(out), "KILLED AT "+tc.at) {
				t.Fatalf("the helper was not killed at %s: %v, output %q", tc.at, err, out)
			}
			if tc.partial {
				if n := liveKeys(t, dir); n == keysBefore || n == keysFrom {
					t.Errorf("killed at %s, the store has the %d keys it had before: the write was not under way", tc.at, n)
				}
			}
			got := logicalState(t, dir)
			want, wantName := before, "before"
			if tc.committed {
				want, wantName = after[tc.op], "after"
			}
			if got != want {
				t.Fatalf("killed at %s, reopened store differs from the store %s %s:\n%s", tc.at, wantName, tc.op, firstDiff(want, got))
			}
			// The store takes writes afterwards, and still verifies.
			db := mustOpen(t, dir)
			defer db.Close()
			if err := runOp(db, tc.op); err != nil {
				t.Fatalf("%s after the crash: %v", tc.op, err)
			}
			if _, err := db.Verify(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// firstDiff shows the first line where two renderings differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n- %s\n+ %s\n(%d vs %d lines)", i+1, w, g, len(wl), len(gl))
		}
	}
	return "(equal)"
}

// uncovered names a step a write reaches without a crash case, and a case
// whose step is not reached as often as it says.
func TestUncoveredSteps(t *testing.T) {
	cases := []crashCase{{"w", "a:1", false, false}, {"w", "b:3", false, false}}
	got := uncovered(cases, map[string]map[string]int{"w": {"a": 1, "b": 2, "c": 1}, "v": {"a": 1}})
	want := []string{
		"the case w@b:3: w reaches b 2 times",
		"v reaches the step a, which no crash case covers",
		"w reaches the step c, which no crash case covers",
	}
	if !slices.Equal(got, want) {
		t.Errorf("uncovered = %q, want %q", got, want)
	}
}
