package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeHoldsStore: while serve holds a store, DB/serve.addr names it
// (address and pid); query asks the server, printing what it prints
// without one; the commands the store's lock refuses say that the server
// holds it rather than blame a load or infer; the file goes when serve
// stops.
func TestServeHoldsStore(t *testing.T) {
	db := loadedDB(t, "marc_ueda\thusband\talice_ortiz\n")
	rules := writeFile(t, filepath.Dir(db), "rules.dl", "0.8 :: wife(A, B) :- husband(B, A).\n")
	s := startServe(t, "--db", db, "-q", "serve", "--addr", "127.0.0.1:0", rules)
	addr := filepath.Join(db, "serve.addr")
	want := fmt.Sprintf("%s\npid %d\n", s.url, os.Getpid())
	for deadline := time.Now().Add(5 * time.Second); ; {
		if got, _ := os.ReadFile(addr); string(got) == want {
			break
		}
		if time.Now().After(deadline) {
			got, _ := os.ReadFile(addr)
			t.Fatalf("serve.addr: %q, want %q", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// query asks the server: the same output as without it (below)
	queries := [][]string{
		{"query", "wife(X, Y)?"},
		{"query", "--format", "json", "--explain", "wife(X, Y)?"},
		{"query", "--format", "tsv", "wife(alice_ortiz, Y)?"},
		{"query", "--explain", "wife(alice_ortiz, marc_ueda)?"},
	}
	var beside []string
	for _, args := range queries {
		out, stderr, code := runCLI(t, "", append([]string{"--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("%v beside serve: exit %d: %s", args, code, stderr)
		}
		beside = append(beside, out)
	}
	for _, bad := range []string{"wife(X, Y", "wief(X, Y)?"} {
		if _, stderr, code := runCLI(t, "", "--db", db, "query", bad); code != 2 {
			t.Errorf("query %s beside serve: exit %d, want 2: %s", bad, code, stderr)
		}
	}
	hint := fmt.Sprintf("serve (pid %d, %s) holds the store: stop it or use the API", os.Getpid(), s.url)
	for _, args := range [][]string{
		{"query", "--count", "wife(X, Y)?"},
		{"mine", "--out", filepath.Join(t.TempDir(), "m.dl")},
		{"verify"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db}, args...)...)
		if code == 0 || !strings.Contains(stderr, hint) || strings.Contains(stderr, "load or infer") {
			t.Errorf("%s beside serve: exit %d: %s", args[0], code, stderr)
		}
	}
	if c := s.stop(); c != 0 {
		t.Fatalf("serve: exit %d: %s", c, s.stderr)
	}
	if _, err := os.Stat(addr); !os.IsNotExist(err) {
		t.Errorf("serve.addr after serve stopped: %v", err)
	}
	for i, args := range queries {
		out, stderr, code := runCLI(t, "", append([]string{"--db", db}, args...)...)
		if code != 0 || out != beside[i] {
			t.Errorf("%v: beside serve\n%s\nalone (exit %d)\n%s%s", args, beside[i], code, out, stderr)
		}
	}
}
