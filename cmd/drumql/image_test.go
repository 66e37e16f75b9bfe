package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInferImage follows the materialisation image through the CLI: an
// update writes it, the next one reads it (same answers as infer --full),
// stats and verify show it; a corrupt image makes infer say so and read
// the store, and verify exit 3; a stale one is a note; --no-image neither
// reads nor writes it.
func TestInferImage(t *testing.T) {
	var g strings.Builder
	for i := range 30 {
		fmt.Fprintf(&g, "v%d\te\tv%d\n", i, i+1)
	}
	dir := t.TempDir()
	db := loadedDB(t, g.String())
	prog := writeFile(t, dir, "tc.dl", "tc(X, Y) :- e(X, Y).\n0.9 :: tc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	img := filepath.Join(db, "materialisation.img")
	infer := func(want string, args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "infer"}, append(args, prog)...)...)
		if code != 0 || !strings.Contains(out, "(incremental") || !strings.Contains(stderr, want) {
			t.Fatalf("infer %v: exit %d, want an update and %q on stderr:\n%s[stderr]\n%s", args, code, want, out, stderr)
		}
		if want == "" && strings.Contains(stderr, "image") {
			t.Fatalf("infer %v: a note about the image: %s", args, stderr)
		}
		return stderr
	}
	edit := func(cmd, tsv string) {
		t.Helper()
		if _, stderr, code := runCLI(t, "", "--db", db, "-q", cmd, writeFile(t, dir, "x.tsv", tsv)); code != 0 {
			t.Fatalf("%s: %s", cmd, stderr)
		}
	}
	sameAsFull := func(step string) {
		t.Helper()
		fresh := filepath.Join(t.TempDir(), "fresh")
		copyDir(t, db, fresh)
		if _, stderr, code := runCLI(t, "", "--db", fresh, "-q", "infer", "--full", prog); code != 0 {
			t.Fatalf("%s: infer --full: %s", step, stderr)
		}
		got, _, _ := runCLI(t, "", "--db", db, "query", "--format", "tsv", "tc(X, Y)?")
		want, _, _ := runCLI(t, "", "--db", fresh, "query", "--format", "tsv", "tc(X, Y)?")
		if got != want || got == "" {
			t.Fatalf("%s: tc differs from infer --full:\n%s\nwant\n%s", step, got, want)
		}
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", prog); code != 0 {
		t.Fatal(stderr)
	}
	edit("retract", "v20\te\tv21\n")
	infer("")
	if _, err := os.Stat(img); err != nil {
		t.Fatalf("no image after an update: %v", err)
	}
	edit("load", "v20\te\tv21\n")
	infer("") // from the image
	sameAsFull("from the image")
	out, _, _ := runCLI(t, "", "--db", db, "stats")
	if !strings.Contains(out, "image:") || !strings.Contains(out, ": current") {
		t.Errorf("stats does not show a current image:\n%s", out)
	}
	out, _, code := runCLI(t, "", "--db", db, "verify")
	if code != 0 || !strings.Contains(out, "image: ") || !strings.Contains(out, ": current") {
		t.Errorf("verify: exit %d:\n%s", code, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(img, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, code := runCLI(t, "", "--db", db, "verify"); code != exitCorrupt || !strings.Contains(out, "corrupt") {
		t.Errorf("verify of a corrupt image: exit %d, want %d:\n%s", code, exitCorrupt, out)
	}
	edit("retract", "v5\te\tv6\n")
	infer("note: the materialisation image is corrupt")
	sameAsFull("after a corrupt image")
	old, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	edit("load", "v5\te\tv6\n")
	infer("")
	if err := os.WriteFile(img, old, 0o600); err != nil { // the image of the state before
		t.Fatal(err)
	}
	if out, _, code := runCLI(t, "", "--db", db, "verify"); code != 0 || !strings.Contains(out, "note: image: ") || !strings.Contains(out, "stale") {
		t.Errorf("verify of a stale image: exit %d:\n%s", code, out)
	}
	edit("retract", "v7\te\tv8\n")
	infer("note: the materialisation image is stale")
	sameAsFull("after a stale image")
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	edit("load", "v7\te\tv8\n")
	infer("", "--no-image")
	if after, err := os.ReadFile(img); err != nil || string(after) != string(before) {
		t.Errorf("infer --no-image changed the image (%v)", err)
	}
	sameAsFull("with --no-image")
}
