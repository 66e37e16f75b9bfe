package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestConcurrentReaders runs readers while a writer moves a counter: each
// update replaces the base fact gen(s, gI) by gen(s, gI+1) in one request,
// and the derived relation tag(X, G) follows it. Every reader must see
// exactly one gen fact and five tag facts of one version, and versions
// never go back; another writer adds and removes an unrelated rule.
func TestConcurrentReaders(t *testing.T) {
	var g strings.Builder
	for i := range 5 {
		fmt.Fprintf(&g, "x%d member s\n", i)
	}
	g.WriteString("s gen g0\n")
	e := newEnv(t, g.String(), "tag(X, G) :- member(X, S), gen(S, G).\n", nil)
	const updates = 25
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 16)
	client := e.ts.Client()
	post := func(path, body string) (int, []byte, error) {
		resp, err := client.Post(e.ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	version := func(name string) (int, error) {
		if !strings.HasPrefix(name, "g") {
			return 0, fmt.Errorf("bad version %q", name)
		}
		return strconv.Atoi(name[1:])
	}
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for n := 0; ; n++ {
				select {
				case <-done:
					if n == 0 {
						errs <- fmt.Errorf("reader %d read nothing", r)
					}
					return
				default:
				}
				code, b, err := post("/v1/query", `{"query": "gen(s, G)?"}`)
				if err != nil || code != 200 {
					errs <- fmt.Errorf("gen: %d %v %s", code, err, b)
					return
				}
				var gens []map[string]any
				json.Unmarshal(b, &gens)
				if len(gens) != 1 {
					errs <- fmt.Errorf("reader %d saw %d gen facts: %s", r, len(gens), b)
					return
				}
				v, err := version(gens[0]["G"].(string))
				if err != nil || v < last {
					errs <- fmt.Errorf("reader %d: gen version %d after %d (%v)", r, v, last, err)
					return
				}
				last = v
				code, b, err = post("/v1/query", `{"query": "tag(X, G)?"}`)
				if err != nil || code != 200 {
					errs <- fmt.Errorf("tag: %d %v %s", code, err, b)
					return
				}
				var tags []map[string]any
				json.Unmarshal(b, &tags)
				if len(tags) != 5 {
					errs <- fmt.Errorf("reader %d saw %d tag facts: %s", r, len(tags), b)
					return
				}
				for _, tg := range tags {
					v, err := version(tg["G"].(string))
					if err != nil || v < last || tg["G"] != tags[0]["G"] {
						errs <- fmt.Errorf("reader %d: tags of mixed or older versions (after %d): %s", r, last, b)
						return
					}
					last = v
				}
			}
		}()
	}
	var writers sync.WaitGroup
	writers.Add(2)
	go func() {
		defer writers.Done()
		for i := range updates {
			body := fmt.Sprintf(`{"remove": [["s", "gen", "g%d"]], "add": [["s", "gen", "g%d"]]}`, i, i+1)
			if code, b, err := post("/v1/facts", body); err != nil || code != 200 {
				errs <- fmt.Errorf("update %d: %d %v %s", i, code, err, b)
				return
			}
		}
	}()
	go func() {
		defer writers.Done()
		for i := range updates / 2 {
			op := "add"
			if i%2 == 1 {
				op = "remove"
			}
			body := fmt.Sprintf(`{%q: ["0.5 :: near(X, Y) :- member(X, S), member(Y, S), X != Y."]}`, op)
			if code, b, err := post("/v1/rules", body); err != nil || code != 200 {
				errs <- fmt.Errorf("rule edit %d: %d %v %s", i, code, err, b)
				return
			}
		}
	}()
	writers.Wait()
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	sameAnswers(t, "the last version", e.ask("tag(X, G)?"), answers{"x0 g25": 1, "x1 g25": 1, "x2 g25": 1, "x3 g25": 1, "x4 g25": 1})
}

// TestGracefulShutdown shuts the server down while a request is in
// flight (its body half sent): the request completes, then the store
// closes and opens again with the update in it.
func TestGracefulShutdown(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	e.ts.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e.srv.Handler()}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	pr, pw := io.Pipe()
	type result struct {
		code int
		body []byte
		err  error
	}
	res := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/v1/facts", pr)
		req.ContentLength = -1
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		res <- result{resp.StatusCode, b, err}
	}()
	if _, err := pw.Write([]byte(`{"add": [["kim", "husband", `)); err != nil {
		t.Fatal(err)
	}
	// wait until the server reads the request
	deadline := time.Now().Add(10 * time.Second)
	for e.srv.metricsInFlight() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if e.srv.metricsInFlight() == 0 {
		t.Fatal("the request never reached the handler")
	}
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned with a request in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	pw.Write([]byte(`"lee"]]}`))
	pw.Close()
	r := <-res
	if r.err != nil || r.code != 200 {
		t.Fatalf("the request in flight: %d %v %s", r.code, r.err, r.body)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Fatal(err)
	}
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(e.db, store.Options{})
	if err != nil {
		t.Fatalf("reopening the store: %v", err)
	}
	defer st.Close()
	q := datalog.Atom{Pred: "wife", Args: []datalog.Term{{Kind: datalog.Symbol, Value: "lee"}, {Kind: datalog.Var, Value: "X"}}}
	as, err := reasoner.Query(context.Background(), st, nil, q, reasoner.Options{})
	if err != nil || len(as) != 1 || as[0].Values[0] != "kim" {
		t.Fatalf("after the restart: %v %v", as, err)
	}
}

// metricsInFlight is the number of requests being answered.
func (s *Server) metricsInFlight() int64 { return s.inFlight.Load() }
