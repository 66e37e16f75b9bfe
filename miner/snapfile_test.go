package miner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

// snapshotBytes writes src's snapshot file to memory.
func snapshotBytes(t *testing.T, src GraphSource) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSnapshot(context.Background(), &b, src); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSnapshotRoundTrip writes a store's snapshot file, reads it back and
// checks that the graph, the names and the splits are the store's.
func TestSnapshotRoundTrip(t *testing.T) {
	tiny := tinySplits()
	// A validation triple with an entity outside the graph: its name must
	// travel too.
	tiny["valid"] = append(tiny["valid"], [3]string{"zed", "mother", "h"})
	tiny["test"] = [][3]string{{"e", "brother", "f"}}
	for _, tc := range []struct {
		name string
		st   store.Store
	}{
		{"tiny", memStore(t, tiny)},
		{"family", datasetStore(t, "../examples/family")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			data := snapshotBytes(t, tc.st.(GraphSource))
			f, err := ReadSnapshot(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			want, err := tc.st.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := f.Snapshot(ctx)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("snapshot differs from the store's")
			}
			wantSplits, _ := tc.st.Splits()
			gotSplits, _ := f.Splits()
			slices.Sort(wantSplits)
			if !slices.Equal(gotSplits, wantSplits) {
				t.Errorf("splits %q, want %q", gotSplits, wantSplits)
			}
			for _, name := range wantSplits {
				var a, b []store.Triple
				for x, err := range tc.st.Split(name) {
					if err != nil {
						t.Fatal(err)
					}
					a = append(a, x)
					for _, id := range []store.ID{x.S, x.R, x.O} {
						wn, _ := tc.st.Name(id)
						if gn, err := f.Name(id); err != nil || gn != wn {
							t.Errorf("name of %d: %q, %v; want %q", id, gn, err, wn)
						}
					}
				}
				for x, err := range f.Split(name) {
					if err != nil {
						t.Fatal(err)
					}
					b = append(b, x)
				}
				if !slices.Equal(a, b) {
					t.Errorf("split %s: %d triples differ from the store's %d", name, len(b), len(a))
				}
			}
			// Writing the file's own content again gives the same bytes.
			if again := snapshotBytes(t, f); !bytes.Equal(again, data) {
				t.Errorf("rewriting the snapshot changed it (%d bytes, was %d)", len(again), len(data))
			}
		})
	}
}

// TestSnapshotTrainsIdentically trains from a store and from its snapshot
// file and compares the saved models and the rules byte for byte.
func TestSnapshotTrainsIdentically(t *testing.T) {
	st := memStore(t, tinySplits())
	data := snapshotBytes(t, st.(GraphSource))
	f, err := ReadSnapshot(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{MaxEpochs: 3, MinEpochs: 3, Hidden: 8, Embed: 8}
	var outs [2]string
	for i, src := range []GraphSource{st.(GraphSource), f} {
		ctx := context.Background()
		g, err := LoadGraph(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = mineBytes(t, src, g, cfg, false)
	}
	if outs[0] != outs[1] {
		t.Errorf("model and rules from the snapshot file differ from the store's")
	}
	if !strings.Contains(outs[0], ":-") {
		t.Errorf("no rules were mined; the comparison proves nothing")
	}
}

// TestSnapshotDamaged checks that damaged files are refused with
// ErrBadSnapshot and, through ReadSnapshotFile, the file's name.
func TestSnapshotDamaged(t *testing.T) {
	good := snapshotBytes(t, memStore(t, tinySplits()).(GraphSource))
	flip := func(i int) []byte {
		b := slices.Clone(good)
		b[i] ^= 0x10
		return b
	}
	version := slices.Clone(good)
	version[len(snapMagic)] = 9
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"flipped name byte", flip(bytes.LastIndex(good, []byte("husband")) + 2), "checksum mismatch"},
		{"flipped checksum", flip(len(good) - 1), "checksum mismatch"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"no checksum", good[:len(good)-4], ""},
		{"trailing", append(slices.Clone(good), 0), ""},
		{"magic", flip(0), "bad magic"},
		{"version", version, "format version 9"},
		{"empty", nil, "bad magic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.snap")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadSnapshotFile(path)
			if !errors.Is(err, ErrBadSnapshot) {
				t.Fatalf("error %v, want ErrBadSnapshot", err)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name the file or say %q", err, tc.want)
			}
			if n := strings.Count(err.Error(), "miner:"); n != 1 {
				t.Errorf("error %q names the package %d times, want once", err, n)
			}
		})
	}
	if _, err := ReadSnapshot(bytes.NewReader(good), int64(len(good))); err != nil {
		t.Errorf("undamaged file: %v", err)
	}
}
