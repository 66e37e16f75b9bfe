//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drumql/drumql/internal/tmpfs"
)

// buildDrumql builds this command into a temporary directory, with the
// build tag drumql_nospacecheck: its writers skip the free-space check, so
// a write can fill the device as one does when another process fills it
// after the check (store/nospacecheck.go).
func buildDrumql(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go") // go test puts its GOROOT/bin first on PATH
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "drumql")
	out, err := exec.Command(gobin, "build", "-tags", "drumql_nospacecheck", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBin runs the drumql binary bin with args and returns its stdout,
// stderr and exit code.
func runBin(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("drumql %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// fillDevice writes a file into the file system at mnt that leaves it
// free bytes, and returns its path.
func fillDevice(t *testing.T, mnt string, free int64) string {
	t.Helper()
	ballast := filepath.Join(mnt, "ballast")
	var fs syscall.Statfs_t
	if err := syscall.Statfs(mnt, &fs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ballast, make([]byte, int64(fs.Bavail)*fs.Bsize-free), 0o644); err != nil {
		t.Fatal(err)
	}
	return ballast
}

// statsJSON is what 'stats --format json' says of the store at db, read by
// this process (a build with the free-space check), without the sizes on
// disk.
func statsJSON(t *testing.T, db string) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--db", db, "-q", "stats", "--format", "json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr.String())
	}
	var m map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		t.Fatalf("stats: %v\n%s", err, stdout.String())
	}
	delete(m, "disk_bytes")
	delete(m, "reclaimable_bytes")
	return m
}

// A load that fills the device while Badger writes its memory-mapped log
// dies of SIGBUS in the child process; the supervisor says "no space left"
// with exit 1 instead of the runtime's crash report with exit 2, and the
// store, once space is freed, holds what it held before. The supervisor
// passes the child's output and exit codes through otherwise.
func TestWriteFaultOnFullDevice(t *testing.T) {
	mnt := tmpfs.Mount(t, 24<<20)
	bin := buildDrumql(t)
	db := filepath.Join(mnt, "db")

	stdout, stderr, code := runBin(t, bin, "-q", "--db", db, "load", filepath.Join("..", "..", "examples", "family"))
	if code != 0 || !strings.Contains(stdout, "loaded 23483 new facts") {
		t.Fatalf("load family: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	_, stderr, code = runBin(t, bin, "-q", "--db", db, "load", filepath.Join(t.TempDir(), "missing.tsv"))
	if code != exitUsage || strings.Count(stderr, "nothing was loaded") != 1 {
		t.Fatalf("load of a missing file: exit %d, want %d with the child's message once:\n%s", code, exitUsage, stderr)
	}
	before := statsJSON(t, db)

	// 80,000 new facts take about 6 MiB of Badger's log; leave 4 MiB.
	var tsv bytes.Buffer
	for i := range 80000 {
		fmt.Fprintf(&tsv, "e%d\tr%d\te%d\n", i, i%7, i*7919%80000)
	}
	big := filepath.Join(t.TempDir(), "big.tsv")
	if err := os.WriteFile(big, tsv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ballast := fillDevice(t, mnt, 4<<20)

	stdout, stderr, code = runBin(t, bin, "-q", "--db", db, "load", big)
	if code != exitFailure || !strings.Contains(stderr, "drumql: load: no space left on the device of "+db+" while writing") ||
		!strings.Contains(stderr, "the store is unchanged") || strings.Contains(stderr, "goroutine") || stdout != "" {
		t.Fatalf("load that fills the device: exit %d, want %d with a message about space and no crash report\nstdout: %s\nstderr: %s",
			code, exitFailure, stdout, stderr)
	}

	// While the device is still full, a reader is refused: opening the
	// store would replay the log the faulted write left, whose pages a
	// tmpfs allocates when they are read (before, stats died of SIGBUS).
	stdout, stderr, code = runBin(t, bin, "-q", "--db", db, "stats")
	if code != exitFailure || !strings.Contains(stderr, "no space left on the device at "+db) ||
		!strings.Contains(stderr, "replays the log of a write that did not finish") || strings.Contains(stderr, "goroutine") {
		t.Fatalf("stats on the full device after the faulted load: exit %d, want %d with a message about space\nstdout: %s\nstderr: %s",
			code, exitFailure, stdout, stderr)
	}

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	after := statsJSON(t, db)
	if a, b := fmt.Sprint(after), fmt.Sprint(before); a != b {
		t.Errorf("the store after the faulted load:\n%s\nwant what it held before:\n%s", a, b)
	}
}

// TestServeFaultOnFullDevice: drumql serve runs supervised too: when the
// device fills while it stores an edit, it ends with the message about
// space (exit 1, no crash report), and the store holds what it held before
// that edit.
func TestServeFaultOnFullDevice(t *testing.T) {
	mnt := tmpfs.Mount(t, 24<<20)
	bin := buildDrumql(t)
	db := filepath.Join(mnt, "db")
	if _, stderr, code := runBin(t, bin, "-q", "--db", db, "load", filepath.Join("..", "..", "examples", "family")); code != 0 {
		t.Fatalf("load family: exit %d: %s", code, stderr)
	}
	rules := writeFile(t, t.TempDir(), "r.dl", "0.8 :: linked(A, B) :- r0(A, B).\n")
	// A free port on loopback for the server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var stdout, stderr bytes.Buffer
	srv := exec.Command(bin, "-q", "--db", db, "serve", "--addr", addr, "--max-body", "64M", "--edits", filepath.Join(t.TempDir(), "edits.dl"), rules)
	srv.Stdout, srv.Stderr = &stdout, &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	t.Cleanup(func() { srv.Process.Kill() })
	up := false
	for range 600 {
		if resp, err := http.Get("http://" + addr + "/v1/health"); err == nil {
			resp.Body.Close()
			up = true
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if !up {
		t.Fatalf("serve did not answer on %s: %s", addr, stderr.String())
	}
	// What the store holds before the edit, as the server says.
	resp, err := http.Get("http://" + addr + "/v1/stats")
	if err != nil {
		t.Fatal(err)
	}
	var before map[string]any
	err = json.NewDecoder(resp.Body).Decode(&before)
	resp.Body.Close()
	if err != nil || before["base_facts"] == nil {
		t.Fatalf("stats: %v %v", err, before)
	}

	// 80,000 new facts take about 6 MiB of Badger's log; leave 4 MiB.
	var body strings.Builder
	body.WriteString(`{"add": [`)
	for i := range 80000 {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `["e%d", "r0", "e%d"]`, i, i*7919%80000)
	}
	body.WriteString(`]}`)
	ballast := fillDevice(t, mnt, 4<<20)
	resp, err = http.Post("http://"+addr+"/v1/facts", "application/json", strings.NewReader(body.String()))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("the edit that fills the device answered %s; want the server gone", resp.Status)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("serve still running after the fault")
	}
	if code := srv.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(stderr.String(), "drumql: serve: no space left on the device of "+db+" while writing") ||
		!strings.Contains(stderr.String(), "the store holds the edits stored before the fault") || strings.Contains(stderr.String(), "goroutine") {
		t.Fatalf("serve after a fault: exit %d, want %d with a message about space and no crash report\nstderr: %s", code, exitFailure, stderr.String())
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	after := statsJSON(t, db)
	if after["base_facts"] != before["base_facts"] {
		t.Errorf("the store after the faulted edit: %v base facts, want %v", after["base_facts"], before["base_facts"])
	}
}
