package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestKilledImageWrite kills drumql infer (kill -9) at spread-out moments
// of an update that reads the materialisation image and writes a new one:
// each time the image is the old one, whole, or the new one, current
// (verify passes: never a mix), and the next infer gives the answers of
// the completed update. (The image's write is a few milliseconds of the
// update: that a failure at each of its steps leaves the old image is
// TestImageWriteFailures', in reasoner/maintain.)
func TestKilledImageWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds drumql and kills it repeatedly")
	}
	bin := buildDrumql(t)
	dir := t.TempDir()
	var g strings.Builder
	for i := range 200 {
		fmt.Fprintf(&g, "v%d\te\tv%d\n", i, i+1)
	}
	prog := writeFile(t, dir, "tc.dl", "tc(X, Y) :- e(X, Y).\n0.99 :: tc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	db := filepath.Join(dir, "db")
	run := func(db string, args ...string) string {
		t.Helper()
		out, stderr, code := runBin(t, bin, append([]string{"--db", db, "-q"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	run(db, "load", writeFile(t, dir, "g.tsv", g.String()))
	run(db, "infer", prog)
	cut := writeFile(t, dir, "cut.tsv", "v190\te\tv191\n")
	run(db, "retract", cut)
	run(db, "infer", prog) // writes the image
	run(db, "load", cut)
	img := filepath.Join(db, "materialisation.img")
	old, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	pending := filepath.Join(dir, "pending")
	copyDir(t, db, pending)
	start := time.Now()
	run(db, "infer", prog) // from the image
	took := time.Since(start)
	want := run(db, "query", "--format", "tsv", "tc(X, Y)?")
	var sawOld, sawNew int
	const kills = 12
	for i := range kills {
		x := filepath.Join(dir, fmt.Sprint("x", i))
		copyDir(t, pending, x)
		cmd := exec.Command(bin, "--db", x, "-q", "infer", prog)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := took * time.Duration(i+1) / (kills + 1)
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		// the supervised writer dies with its parent, a moment later; a
		// write it left is rolled back by the next writer
		_, stderr, code := runBin(t, bin, "--db", x, "-q", "load", writeFile(t, dir, "empty.tsv", ""))
		for try := 0; code != 0 && strings.Contains(stderr, "in use by another process") && try < 200; try++ {
			time.Sleep(25 * time.Millisecond)
			_, stderr, code = runBin(t, bin, "--db", x, "-q", "load", writeFile(t, dir, "empty.tsv", ""))
		}
		if code != 0 {
			t.Fatalf("kill after %s: load: %s", after, stderr)
		}
		out, stderr, code := runBin(t, bin, "--db", x, "verify")
		if code != 0 {
			t.Fatalf("kill after %s: verify: exit %d: %s%s", after, code, out, stderr)
		}
		now, err := os.ReadFile(filepath.Join(x, "materialisation.img"))
		switch {
		case err != nil:
			t.Fatalf("kill after %s: no image: %v", after, err)
		case string(now) == string(old):
			sawOld++
		case strings.Contains(out, ": current"):
			sawNew++
		default:
			t.Fatalf("kill after %s: an image neither the old one nor current:\n%s", after, out)
		}
		run(x, "infer", prog)
		if got := run(x, "query", "--format", "tsv", "tc(X, Y)?"); got != want {
			t.Fatalf("kill after %s: the next infer answers otherwise", after)
		}
	}
	t.Logf("an update takes %s; %d kills left the old image, %d the new", took, sawOld, sawNew)
}
