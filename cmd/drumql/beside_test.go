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
// (address and pid), and the commands the store's lock refuses say that
// the server holds it rather than blame a load or infer; the file goes
// when serve stops.
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
	hint := fmt.Sprintf("serve (pid %d, %s) holds the store: stop it or use the API", os.Getpid(), s.url)
	for _, args := range [][]string{
		{"query", "wife(X, Y)?"},
		{"stats"},
		{"mine", "--out", filepath.Join(t.TempDir(), "m.dl")},
		{"load", writeFile(t, t.TempDir(), "more.tsv", "bob\thusband\tcarol\n")},
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
}
