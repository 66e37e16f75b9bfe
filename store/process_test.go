package store

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Environment of the re-executed test binary.
const (
	helperEnv    = "DRUMQL_STORE_HELPER"
	helperDirEnv = "DRUMQL_STORE_HELPER_DIR"
	// helperLoadEnv, when set, makes the helper load a chain of that
	// many triples (chainBatch) instead of its synthetic batch, into the
	// store opened with a memtable of chainMemTable bytes.
	helperLoadEnv = "DRUMQL_STORE_HELPER_LOAD"
)

// TestHelperProcess is not a test: it is the child process of the tests
// below, started by re-executing the test binary.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for the crash and locking tests")
	}
	dir := os.Getenv(helperDirEnv)
	if at := os.Getenv(helperCrashEnv); mode == "op" && at != "" {
		crashAt(at) // Open may recover the store: a step of the test
	}
	opts := Options{ReadOnly: mode == "hold-ro"}
	if os.Getenv(helperLoadEnv) != "" {
		opts.MemTableSize = chainMemTable
	}
	db, err := Open(dir, opts)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	switch mode {
	case "hold", "hold-ro":
		fmt.Println("OPEN")
		time.Sleep(time.Minute)
	case "load":
		b := syntheticBatch(150000, "big")
		if s := os.Getenv(helperLoadEnv); s != "" {
			n, _ := strconv.Atoi(s)
			b = chainBatch(n)
		}
		half := false
		_, err := db.Load(context.Background(), b, func(done, total int) {
			if !half && done >= total/2 {
				half = true
				fmt.Println("HALF")
				time.Sleep(time.Minute) // the parent kills us here
			}
		})
		fmt.Println("DONE", err)
	case "op":
		fmt.Println("DONE", runOp(db, os.Getenv(helperOpEnv)))
	}
	os.Exit(0)
}

// syntheticBatch has n triples over about n/10 entities, plus n-ary facts
// and a split, with names prefixed by tag.
func syntheticBatch(n int, tag string) *Batch {
	b := &Batch{Splits: map[string][]NamedTriple{}}
	ents := max(n/10, 10)
	for i := range n {
		t := NamedTriple{
			S: fmt.Sprintf("%s-e%d", tag, (i*7919)%ents),
			R: fmt.Sprintf("r%d", i%13),
			O: fmt.Sprintf("%s-e%d", tag, (i*104729+3)%ents),
		}
		b.Graph = append(b.Graph, t)
		if i%5 == 0 {
			b.Splits["test"] = append(b.Splits["test"], t)
		}
	}
	for i := range n / 100 {
		b.Facts = append(b.Facts, NamedFact{Rel: "p", Args: []string{fmt.Sprintf("%s-e%d", tag, i), "a", "b"}})
	}
	return b
}

// chainMemTable is the memtable size of the helper's chain load, about
// the least Badger accepts: the memtable fills, and its tables are
// compacted, with less data.
const chainMemTable = 8 << 20

// chainBatch is the chain c0 next c1 next ... cn: facts whose keys come
// in the order of the batch, as a file sorted by entity loads them.
func chainBatch(n int) *Batch {
	b := &Batch{Graph: make([]NamedTriple, n)}
	for i := range b.Graph {
		b.Graph[i] = NamedTriple{S: fmt.Sprintf("c%d", i), R: "next", O: fmt.Sprintf("c%d", i+1)}
	}
	return b
}

// startHelper re-executes the test binary in mode and waits for the line want.
func startHelper(t *testing.T, mode, dir, want string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := sc.Text(); line == want {
			return cmd
		} else if strings.HasPrefix(line, "ERROR") || strings.HasPrefix(line, "DONE") {
			t.Fatalf("helper %s: %s", mode, line)
		}
	}
	t.Fatalf("helper %s exited before printing %s", mode, want)
	return nil
}

func mustOpen(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func rawDumpDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	db := mustOpen(t, dir)
	defer db.Close()
	m, err := db.rawDump()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func openRaw(t *testing.T, dir string) *badger.DB {
	t.Helper()
	bdb, err := badger.Open(badger.DefaultOptions(dir).WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	return bdb
}

func TestKilledLoadRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	db := mustOpen(t, dir)
	if _, err := db.Load(context.Background(), syntheticBatch(2000, "small"), nil); err != nil {
		t.Fatal(err)
	}
	ds := []Derived{{Fact: Fact{Rel: 3, Args: []ID{1, 2}}, Confidence: 0.5, Prov: Provenance{Rule: "r"}}}
	if err := db.ReplaceDerived(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := rawDumpDir(t, dir)

	cmd := startHelper(t, "load", dir, "HALF")
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()

	// Read-only opens report the incomplete load, before and after Badger's
	// own log recovery.
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("read-only Open after a killed load: %v, want ErrIncomplete", err)
	}
	// The child did write part of the load.
	bdb := openRaw(t, dir)
	pending, keys := false, 0
	bdb.View(func(txn *badger.Txn) error {
		_, err := txn.Get(metaPending)
		pending = err == nil
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			keys++
		}
		return nil
	})
	bdb.Close()
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("read-only Open of a store with a pending load: %v, want ErrIncomplete", err)
	}
	if !pending || keys <= len(before) {
		t.Fatalf("killed child left pending=%v and %d keys (before: %d): the test did not interrupt a load", pending, keys, len(before))
	}

	after := rawDumpDir(t, dir)
	if !maps.Equal(before, after) {
		var extra, missing int
		for k := range after {
			if _, ok := before[k]; !ok {
				extra++
			}
		}
		for k, v := range before {
			if w, ok := after[k]; !ok || w != v {
				missing++
			}
		}
		t.Fatalf("after rollback: %d keys extra, %d missing or changed", extra, missing)
	}
	// The store loads normally afterwards.
	db = mustOpen(t, dir)
	defer db.Close()
	st, err := db.Load(context.Background(), syntheticBatch(1000, "later"), nil)
	if err != nil || st.NewFacts == 0 {
		t.Fatalf("load after rollback: %+v, %v", st, err)
	}
}

func TestSecondProcessGetsErrInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	startHelper(t, "hold", dir, "OPEN")
	start := time.Now()
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Open while another process holds the store: %v, want ErrInUse naming %s", err, dir)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open took %v to fail", d) // generous: only catches a hang
	}
}

func TestOpenTwiceInProcess(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	defer db.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("OtherFiles", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi"), 0o644)
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrNotStore) {
			t.Errorf("Open(dir with other files) = %v, want ErrNotStore", err)
		}
	})
	t.Run("File", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "f")
		os.WriteFile(path, []byte("hi"), 0o644)
		if _, err := Open(path, Options{}); !errors.Is(err, ErrNotStore) {
			t.Errorf("Open(file) = %v, want ErrNotStore", err)
		}
	})
	t.Run("ForeignBadger", func(t *testing.T) {
		dir := t.TempDir()
		bdb := openRaw(t, dir)
		bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte("hello"), []byte("world")) })
		bdb.Close()
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrNotStore) {
			t.Errorf("Open(foreign badger) = %v, want ErrNotStore", err)
		}
	})
	t.Run("NewerFormat", func(t *testing.T) {
		dir := t.TempDir()
		mustOpen(t, dir).Close()
		bdb := openRaw(t, dir)
		bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaFormat, []byte{0, 0, 0, formatVersion + 1}) })
		bdb.Close()
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrNewerFormat) {
			t.Errorf("Open(newer format) = %v, want ErrNewerFormat", err)
		}
	})
	t.Run("MissingDirIsCreated", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "b")
		db := mustOpen(t, dir)
		db.Close()
		if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
			t.Error(err)
		}
	})
	t.Run("ReadOnly", func(t *testing.T) {
		dir := t.TempDir()
		db := mustOpen(t, dir)
		db.Load(context.Background(), syntheticBatch(100, "x"), nil)
		db.Close()
		ro, err := Open(dir, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if n, _ := ro.NumSymbols(); n == 0 {
			t.Error("read-only store is empty")
		}
		if _, err := ro.Intern("new"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Intern on read-only store: %v", err)
		}
	})
}

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	ctx := context.Background()
	if _, err := db.Load(ctx, syntheticBatch(3000, "p"), nil); err != nil {
		t.Fatal(err)
	}
	ds := []Derived{{Fact: Fact{Rel: 2, Args: []ID{1, 2}}, Confidence: 0.5, Prov: Provenance{Rule: "r", Body: []Fact{{Rel: 2, Args: []ID{5}}}}}}
	if err := db.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	want, _ := db.rawDump()
	wantRels, _ := db.Relations()
	db.Close()
	db = mustOpen(t, dir)
	defer db.Close()
	got, _ := db.rawDump()
	gotRels, _ := db.Relations()
	if !maps.Equal(want, got) || fmt.Sprint(wantRels) != fmt.Sprint(gotRels) {
		t.Error("reopened store differs")
	}
}

// An interrupted ReplaceDerived leaves a derived generation that is not
// visible; Open removes it and keeps the visible one.
func TestInterruptedReplaceDerived(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	ctx := context.Background()
	db.Load(ctx, syntheticBatch(100, "d"), nil)
	ds := []Derived{{Fact: Fact{Rel: 2, Args: []ID{1, 2}}, Confidence: 0.5}}
	if err := db.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	want, _ := db.rawDump()
	db.Close()
	bdb := openRaw(t, dir)
	bdb.Update(func(txn *badger.Txn) error {
		txn.Set(metaDNext, u64(7))
		txn.Set(derivedKey(nil, 7, Fact{Rel: 2, Args: []ID{3, 4}}), encodeDerivedValue(nil, 1, Provenance{}))
		txn.Set(dcountKey(7, 2, 2), u64(1))
		txn.Set(append(splitPrefix("test", 99), 0, 0, 0, 0, 0, 0, 0, 0), encodeTriple(Triple{1, 2, 3}))
		return txn.Set(binary8(tagUndo, 5), []byte{13})
	})
	bdb.Close()
	db = mustOpen(t, dir)
	got, _ := db.rawDump()
	delete(got, string(metaDNext))
	delete(want, string(metaDNext))
	if !maps.Equal(want, got) {
		t.Errorf("garbage survived Open: %d keys, want %d", len(got), len(want))
	}
	if d, ok, _ := db.GetDerived(ds[0].Fact); !ok || d.Confidence != 0.5 {
		t.Error("visible derived fact lost")
	}
	// The next replacement does not reuse generation 7.
	if err := db.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if db.dgen != 8 {
		t.Errorf("derived generation %d, want 8", db.dgen)
	}
	db.Close()
}

func binary8(tag byte, v uint64) []byte { return append([]byte{tag}, u64(v)...) }

// A store of format 1 (rules inline in derived values) is read as it is;
// the next derived write stores a rule table, marks the store format 2 and
// removes the old generation entirely.
func TestFormat1DerivedRead(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	ctx := context.Background()
	if _, err := db.Load(ctx, syntheticBatch(100, "d"), nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	old := Derived{Fact: Fact{Rel: 2, Args: []ID{3, 4}}, Confidence: 0.75,
		Prov: Provenance{Rule: "r.dl\t1\t1\t0.75\tp(X, Y) :- q(X, Y).", Body: []Fact{{Rel: 1, Args: []ID{3, 4}}}}}
	bdb := openRaw(t, dir)
	if err := bdb.Update(func(txn *badger.Txn) error {
		for k, v := range map[string][]byte{
			string(metaFormat):                   {0, 0, 0, 1},
			string(metaDNext):                    u64(5),
			string(metaDerived):                  u64(5),
			string(derivedKey(nil, 5, old.Fact)): encodeDerivedValue(nil, old.Confidence, old.Prov),
			string(dcountKey(5, 2, 2)):           u64(1),
		} {
			if err := txn.Set([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	db = mustOpen(t, dir)
	if got, ok, err := db.GetDerived(old.Fact); err != nil || !ok || !reflect.DeepEqual(got, old) {
		t.Fatalf("format 1 GetDerived = %+v, %v, %v; want %+v", got, ok, err, old)
	}
	if ms, err := db.Materialised(); err != nil || !reflect.DeepEqual(ms, MaterialState{}) {
		t.Fatalf("format 1 Materialised = %+v, %v; want no record", ms, err)
	}
	nw := []Derived{
		{Fact: Fact{Rel: 2, Args: []ID{5, 6}}, Confidence: 0.5, Prov: Provenance{Rule: "b"}},
		{Fact: Fact{Rel: 2, Args: []ID{6, 7}}, Confidence: 0.25, Prov: Provenance{Rule: "a", Body: []Fact{{Rel: 1, Args: []ID{6, 7}}}}},
		{Fact: Fact{Rel: 2, Args: []ID{7, 8}}, Confidence: 0.125, Prov: Provenance{Rule: "b"}},
	}
	if err := db.ReplaceDerived(ctx, nw); err != nil {
		t.Fatal(err)
	}
	var got []Derived
	for d, err := range db.ScanDerived(2) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if !reflect.DeepEqual(got, nw) {
		t.Errorf("ScanDerived = %+v, want %+v", got, nw)
	}
	db.Close()
	raw := rawDumpDir(t, dir)
	if f := raw[string(metaFormat)]; f != "\x00\x00\x00\x02" {
		t.Errorf("format %x after a derived write, want 2", f)
	}
	var rules []string
	for k, v := range raw {
		switch k[0] {
		case tagDRule:
			rules = append(rules, fmt.Sprintf("%d:%d=%s", binary.BigEndian.Uint64([]byte(k[1:9])), getID([]byte(k[9:])), v))
		case tagDerived:
			if binary.BigEndian.Uint64([]byte(k[1:9])) == 5 {
				t.Errorf("old generation key %x survived", k)
			}
		}
	}
	slices.Sort(rules)
	if want := []string{"6:0=b", "6:1=a"}; !slices.Equal(rules, want) {
		t.Errorf("rule table %v, want %v (each rule once, ids in order of first use)", rules, want)
	}
}

// rawDump returns every live key and value, for tests.
func (d *DB) rawDump() (map[string]string, error) {
	m := make(map[string]string)
	err := d.view(func(txn *badger.Txn) error {
		_, err := scanPrefix(txn, nil, nil, true, func(k, v []byte) (bool, error) {
			m[string(k)] = string(v)
			return true, nil
		})
		return err
	})
	return m, err
}
