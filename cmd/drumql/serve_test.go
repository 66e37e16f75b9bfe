package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// serving is a drumql serve running in the test process.
type serving struct {
	url            string
	stdout, stderr *lockedBuffer
	stop           func() int // stops it (as SIGINT does) and returns the exit code
}

// startServe runs drumql with args (a serve command on 127.0.0.1:0) until
// stop is called.
func startServe(t *testing.T, args ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	code := make(chan int, 1)
	go func() { code <- run(ctx, args, strings.NewReader(""), s.stdout, s.stderr) }()
	re := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(s.stdout.String()); m != nil {
			s.url = m[1]
			break
		}
		select {
		case c := <-code:
			cancel()
			t.Fatalf("serve exited with %d: %s%s", c, s.stdout, s.stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not start: %s%s", s.stdout, s.stderr)
		}
	}
	stopped := false
	s.stop = func() int {
		if stopped {
			return -1
		}
		stopped = true
		cancel()
		return <-code
	}
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *serving) post(t *testing.T, path, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.url+path, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServe runs drumql serve: its answers are those of drumql query
// --format json, a rule added goes to edits.dl in the store's directory and is
// loaded by the next serve, and SIGINT stops it with the store closed.
func TestServe(t *testing.T) {
	db := loadedDB(t, "marc_ueda\thusband\talice_ortiz\nbob\thusband\tcarol\ncarol\taunt\tdan\nbob\tuncle\tdan\n")
	dir := filepath.Dir(db)
	rules := writeFile(t, dir, "rules.dl", "% rules\n0.8 :: wife(A, B) :- husband(B, A).\n")
	s := startServe(t, "--db", db, "serve", "--addr", "127.0.0.1:0", "--token", "tok", rules)
	code, body := s.post(t, "/v1/query", `{"query": "wife(X, Y)?", "explain": true}`)
	if code != 200 {
		t.Fatalf("query: %d %s", code, body)
	}
	if code, b := s.post(t, "/v1/rules", `{"add": ["0.5 :: spouse(X, Y) :- wife(X, Y)."]}`); code != 401 {
		t.Fatalf("without the token: %d %s", code, b)
	}
	if code, b := s.post(t, "/v1/rules", `{"add": ["0.5 :: spouse(X, Y) :- wife(X, Y)."]}`, "Authorization", "Bearer tok"); code != 200 {
		t.Fatalf("add a rule: %d %s", code, b)
	}
	if c := s.stop(); c != 0 {
		t.Fatalf("serve: exit %d: %s", c, s.stderr)
	}
	if !strings.Contains(s.stdout.String(), "the store is closed") {
		t.Errorf("stdout: %s", s.stdout)
	}
	if !regexp.MustCompile(`method=POST path=/v1/rules status=401 duration_ms=`).MatchString(s.stderr.String()) {
		t.Errorf("no request log line: %s", s.stderr)
	}
	// the same objects as query --format json (the store is free again)
	out, stderr, c := runCLI(t, "", "--db", db, "query", "--format", "json", "--explain", "wife(X, Y)?")
	if c != 0 {
		t.Fatal(stderr)
	}
	if out != body {
		t.Errorf("POST /v1/query:\n%s\ndrumql query --format json:\n%s", body, out)
	}
	edits := filepath.Join(db, "edits.dl")
	if got := source(edits); !strings.HasSuffix(string(got), "\n0.5 :: spouse(X, Y) :- wife(X, Y).\n") {
		t.Fatalf("edits.dl: %q", got)
	}
	// infer with the files finds the store up to date
	if out, stderr, c := runCLI(t, "", "--db", db, "-q", "infer", rules, edits); c != 0 || !strings.Contains(out, "nothing to update") {
		t.Errorf("infer: %d %s%s", c, out, stderr)
	}
	// the next serve loads edits.dl
	s = startServe(t, "--db", db, "-q", "serve", "--addr", "127.0.0.1:0", rules)
	code, body = s.post(t, "/v1/query", `{"query": "spouse(alice_ortiz, X)?"}`)
	if code != 200 || !strings.Contains(body, `"X": "marc_ueda"`) {
		t.Errorf("after the restart: %d %s", code, body)
	}
	if c := s.stop(); c != 0 {
		t.Fatalf("serve: exit %d: %s", c, s.stderr)
	}
}

// TestServeFlags checks the flags' errors.
func TestServeFlags(t *testing.T) {
	db := loadedDB(t, "a\tr\tb\n")
	for _, args := range [][]string{
		{"--max-body", "0"},
		{"--max-facts", "0"},
		{"--query-timeout", "0s"},
		{"--addr", "127.0.0.1:notaport"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db, "serve"}, args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
