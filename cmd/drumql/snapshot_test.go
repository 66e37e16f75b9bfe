package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMineSnapshot mines a store and its snapshot file and compares the
// files (all but the header line, which names the source: the rules and
// the aggregation chosen on the valid split) and the saved models byte for
// byte; a damaged file is refused naming the file.
func TestMineSnapshot(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	data := filepath.Join(repoRoot(t), "examples", "families")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", data); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	snap := filepath.Join(tmp, "g.snap")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "snapshot", "--out", snap); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	// The aggregation is chosen on the valid split, from the store or from
	// the snapshot file alike.
	args := []string{"-q", "mine", "--heads", "wife,husband", "--epochs", "2"}
	fromStore, stderr, code := runCLI(t, "", append([]string{"--db", db}, append(args, "--save-model", filepath.Join(tmp, "a"))...)...)
	if code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	// No store at all: --db points nowhere.
	fromFile, stderr, code := runCLI(t, "", append([]string{"--db", filepath.Join(tmp, "none")}, append(args, "--snapshot", snap, "--save-model", filepath.Join(tmp, "b"))...)...)
	if code != 0 {
		t.Fatalf("mine --snapshot: exit %d: %s", code, stderr)
	}
	body := func(s string) string { return s[strings.Index(s, "\n"):] }
	if !strings.Contains(fromStore, "wife(A, B) :-") || !strings.Contains(fromStore, "\n% aggregation ") || body(fromStore) != body(fromFile) {
		t.Errorf("mine --snapshot wrote\n%s\nmine wrote\n%s", fromFile, fromStore)
	}
	if !strings.Contains(fromFile, "from "+snap) {
		t.Errorf("header does not name the snapshot file:\n%s", fromFile)
	}
	a, _ := os.ReadFile(filepath.Join(tmp, "a"))
	b, _ := os.ReadFile(filepath.Join(tmp, "b"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("models differ (%d and %d bytes)", len(a), len(b))
	}
	raw, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 1
	bad := filepath.Join(tmp, "bad.snap")
	if err := os.WriteFile(bad, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "mine", "--snapshot", bad); code != 2 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "snapshot") {
		t.Errorf("damaged snapshot: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "mine", "--snapshot", snap, "--eval"); code != 2 || !strings.Contains(stderr, "--eval") {
		t.Errorf("--snapshot --eval: exit %d: %s", code, stderr)
	}
}

// Environment of the re-executed test binary that runs drumql and kills
// itself at a step of writing a snapshot file.
const (
	crashArgsEnv = "DRUMQL_TEST_CRASH_ARGS" // the command line, \x1f-separated
	crashAtEnv   = "DRUMQL_TEST_CRASH_AT"   // step:n: killed the n-th time it reaches step
)

// TestCrashProcess is not a test: it is a drumql process started by
// TestKilledSnapshot by re-executing the test binary, which kills itself
// (SIGKILL on Unix: no deferred calls) at a step of writing the snapshot.
func TestCrashProcess(t *testing.T) {
	args := os.Getenv(crashArgsEnv)
	if args == "" {
		t.Skip("helper process for the crash tests")
	}
	at := os.Getenv(crashAtEnv)
	i := strings.LastIndexByte(at, ':')
	n, err := strconv.Atoi(at[i+1:])
	if i < 0 || err != nil {
		fmt.Println("ERROR crash point", at)
		os.Exit(1)
	}
	seen := 0
	testHookSnapshotStep = func(s string) {
		if s != at[:i] {
			return
		}
		if seen++; seen == n {
			fmt.Println("KILLED AT", at)
			p, _ := os.FindProcess(os.Getpid())
			p.Kill()
			select {}
		}
	}
	os.Exit(run(context.Background(), strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
}

// snapshotKills are the crash points of drumql snapshot: a kill before the
// rename leaves --out as it was, one after leaves the new file. partial:
// killed while the temporary file was being written.
var snapshotKills = []struct {
	at                 string
	committed, partial bool
}{
	{"snapshot:writing:1", false, true},
	{"snapshot:writing:2", false, true},
	{"snapshot:written:1", false, false},
	{"snapshot:renamed:1", true, false},
}

// TestKilledSnapshot kills drumql snapshot at every step of writing the
// file, over an older file at --out: each time --out holds the older file
// or the new one whole, never part of it, and the next run writes it. The
// run in this process first counts the steps it reaches: a step without a
// kill case fails the test, also with -short.
func TestKilledSnapshot(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	// Long names: a snapshot of a few MiB, written in several pieces.
	var g strings.Builder
	name := func(i int) string { return fmt.Sprintf("e%d-%s", i, strings.Repeat("x", 4000)) }
	for i := range 600 {
		fmt.Fprintf(&g, "%s\tnext\t%s\n", name(i), name(i+1))
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", writeFile(t, tmp, "g.tsv", g.String())); code != 0 {
		t.Fatalf("load: %s", stderr)
	}
	steps := map[string]int{}
	testHookSnapshotStep = func(s string) { steps[s]++ }
	wantPath := filepath.Join(tmp, "want.snap")
	_, stderr, code := runCLI(t, "", "--db", db, "-q", "snapshot", "--out", wantPath)
	testHookSnapshotStep = nil
	if code != 0 {
		t.Fatalf("snapshot: %s", stderr)
	}
	want, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, k := range snapshotKills {
		i := strings.LastIndexByte(k.at, ':')
		n, _ := strconv.Atoi(k.at[i+1:])
		covered[k.at[:i]] = true
		if steps[k.at[:i]] < n {
			t.Errorf("the kill at %s: snapshot reaches %s %d times", k.at, k.at[:i], steps[k.at[:i]])
		}
	}
	for s := range steps {
		if !covered[s] {
			t.Errorf("snapshot reaches the step %s, which no kill case covers", s)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	const old = "an older snapshot"
	for _, k := range snapshotKills {
		t.Run(k.at, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "g.snap")
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), crashArgsEnv+"="+strings.Join([]string{"--db", db, "-q", "snapshot", "--out", out}, "\x1f"), crashAtEnv+"="+k.at)
			cmd.Stderr = os.Stderr
			stdout, err := cmd.Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !strings.Contains(string(stdout), "KILLED AT "+k.at) {
				t.Fatalf("the helper was not killed at %s: %v, output %q", k.at, err, stdout)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			temps, err := filepath.Glob(filepath.Join(dir, ".g.snap.tmp*"))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case k.committed:
				if !bytes.Equal(got, want) || len(temps) != 0 {
					t.Fatalf("killed at %s: --out holds %d bytes (want the new file's %d), temporary files %v", k.at, len(got), len(want), temps)
				}
			case string(got) != old:
				t.Fatalf("killed at %s: --out holds %d bytes, want the older file", k.at, len(got))
			case len(temps) != 1:
				t.Fatalf("killed at %s: temporary files %v, want one", k.at, temps)
			default:
				tmpData, err := os.ReadFile(temps[0])
				if err != nil {
					t.Fatal(err)
				}
				if k.partial != (len(tmpData) < len(want)) || !bytes.Equal(tmpData, want[:len(tmpData)]) {
					t.Fatalf("killed at %s: the temporary file holds %d bytes of the %d", k.at, len(tmpData), len(want))
				}
			}
			if _, stderr, code := runCLI(t, "", "--db", db, "-q", "snapshot", "--out", out); code != 0 {
				t.Fatalf("snapshot after the kill: %s", stderr)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
				t.Fatalf("snapshot after the kill at %s wrote %d bytes, want %d", k.at, len(got), len(want))
			}
		})
	}
}
