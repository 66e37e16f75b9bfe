package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	i := strings.LastIndexByte(at, ':')
	step := at[:i]
	n, err := strconv.Atoi(at[i+1:])
	if err != nil {
		panic("crash point " + at + ": want step:n")
	}
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

// The writes the crash tests interrupt, on the store of prepareMaterial.
var crashOps = map[string]func(db *DB) error{
	// Fits in one transaction.
	"update-small": func(db *DB) error { return db.UpdateDerived(context.Background(), smallCrashUpdate()) },
	// Fits in one transaction, with a record written before it.
	"update-record": func(db *DB) error {
		u := smallCrashUpdate()
		u.Program = []byte(strings.Repeat("new record ", recordPart/5))
		return db.UpdateDerived(context.Background(), u)
	},
	// Does not fit: a new generation.
	"update-large": func(db *DB) error {
		return db.UpdateDerived(context.Background(), DerivedUpdate{
			Program: []byte("new record"),
			Put:     derivedFactsOf(3, 15000, 30000, "large"),
			Delete:  []Fact{{Rel: 3, Args: []ID{0, 0}}, {Rel: 3, Args: []ID{1, 1}}, {Rel: 3, Args: []ID{2, 3}}},
		})
	},
	"retract": func(db *DB) error {
		b := syntheticBatch(30000, "m")
		_, err := db.Retract(context.Background(), &Batch{Graph: b.Graph[5:25000], Facts: b.Facts[:100]})
		return err
	},
	"load": func(db *DB) error {
		_, err := db.Load(context.Background(), syntheticBatch(20000, "l"), nil)
		return err
	},
	"replace-record": func(db *DB) error {
		ds := derivedFactsOf(4, 0, 30000, "replaced")
		return db.ReplaceDerivedRecord(context.Background(), 0, []byte("replaced"), func(yield func(Derived, error) bool) {
			for _, d := range ds {
				if !yield(d, nil) {
					return
				}
			}
		})
	},
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
	f, ok := crashOps[op]
	if !ok {
		return fmt.Errorf("unknown op %q", op)
	}
	return f(db)
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

// A process killed at any step of a derived update, a retraction, a load
// that logs its changes or a replacement with a record leaves a store
// that, reopened, is exactly as before the write (killed before its commit)
// or exactly as after it (killed after it): facts, counts, record and log.
func TestKilledMaterialWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	prepared := t.TempDir()
	prepareMaterial(t, prepared)
	before := logicalState(t, prepared)
	keysBefore := liveKeys(t, prepared)
	after := map[string]string{}
	for op, f := range crashOps {
		dir := copyStore(t, prepared)
		db := mustOpen(t, dir)
		if err := f(db); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		db.Close()
		after[op] = logicalState(t, dir)
		if after[op] == before {
			t.Fatalf("%s changes nothing", op)
		}
	}
	for _, tc := range []struct {
		op, at    string
		committed bool // killed after the commit point
		partial   bool // killed while the write's data was on its way
	}{
		{"update-small", "update:txn:1", false, false},
		{"update-small", "update:committed:1", true, false},
		{"update-record", "update:record:1", false, false},
		{"update-record", "update:txn:1", false, false},
		{"update-record", "update:committed:1", true, false},
		{"update-large", "update:copying:1", false, false},
		{"update-large", "update:copying:10", false, true},
		{"update-large", "update:written:1", false, true},
		{"update-large", "derived:flipped:1", true, false},
		{"retract", "retract:pending:1", false, false},
		{"retract", "retract:undo:1", false, false},
		{"retract", "retract:deleting:11", false, true},
		{"retract", "retract:written:1", false, true},
		{"retract", "retract:committed:1", true, false},
		{"load", "load:pending:1", false, false},
		{"load", "load:undo:1", false, false},
		{"load", "load:written:1", false, true},
		{"load", "load:committed:1", true, false},
		{"replace-record", "derived:written:1", false, true},
		{"replace-record", "derived:flipped:1", true, false},
	} {
		t.Run(tc.op+"@"+tc.at, func(t *testing.T) {
			dir := copyStore(t, prepared)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"=op", helperDirEnv+"="+dir, helperOpEnv+"="+tc.op, helperCrashEnv+"="+tc.at)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !strings.Contains(string(out), "KILLED AT "+tc.at) {
				t.Fatalf("the helper was not killed at %s: %v, output %q", tc.at, err, out)
			}
			if tc.partial {
				if n := liveKeys(t, dir); n == keysBefore {
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
			if err := crashOps[tc.op](db); err != nil {
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
