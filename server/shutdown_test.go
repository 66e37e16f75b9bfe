package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// chainGraph is n chains of m edges each, c<i>_<j> edge c<i>_<j+1>: its
// closure (chainRule) takes seconds.
func chainGraph(n, m int) string {
	var b strings.Builder
	for c := range n {
		for i := range m {
			fmt.Fprintf(&b, "c%d_%d edge c%d_%d\n", c, i, c, i+1)
		}
	}
	return b.String()
}

const chainRule = `{"add": ["path(X, Z) :- path(X, Y), edge(Y, Z)."]}`

// holdFirstUntilDone returns a server hook that holds the first update
// before it applies anything until its context is done (its client left,
// or the server stops), so that the update is in flight then however fast
// the machine (on its own the closure takes a second or more).
func holdFirstUntilDone() func(context.Context, string) {
	var held atomic.Bool
	return func(ctx context.Context, stage string) {
		if stage == "applying" && held.CompareAndSwap(false, true) {
			<-ctx.Done()
		}
	}
}

// state is what an update must leave as it was when it is rolled back:
// the stats' fact counts, the rules and the edits file.
func (e *testEnv) state() string {
	e.t.Helper()
	var st Stats
	if err := json.Unmarshal(e.mustDo(http.StatusOK, "GET", "/v1/stats", ""), &st); err != nil {
		e.t.Fatal(err)
	}
	edits, _ := os.ReadFile(e.edits)
	rules := e.mustDo(http.StatusOK, "GET", "/v1/rules", "")
	return fmt.Sprintf("base %d derived %d rules %s edits %q", st.BaseFacts, st.DerivedFacts, rules, edits)
}

// TestUpdateClientLeaves: an update whose client leaves is stopped and
// rolled back: the store, the rules and the edits file as before, and
// the server takes the next update (the closure alone takes seconds).
func TestUpdateClientLeaves(t *testing.T) {
	e := newEnv(t, chainGraph(100, 100), "path(X, Z) :- edge(X, Z).\n", nil)
	before := e.state()
	e.srv.hook = holdFirstUntilDone()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", e.ts.URL+"/v1/rules", strings.NewReader(chainRule))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ts.Client().Do(req); err == nil {
		t.Fatal("the update answered within 200 ms: the hook did not hold it")
	}
	left := time.Now()
	e.srv.wmu.Lock() // the update's lock, free once it stopped
	stopped := time.Since(left)
	e.srv.wmu.Unlock()
	if stopped > 2*time.Second {
		t.Errorf("the update ran on %s after its client left", stopped)
	}
	if after := e.state(); after != before {
		t.Errorf("not rolled back:\nbefore %s\nafter  %s", before, after)
	}
	e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["x", "edge", "y"]]}`)
}

// TestShutdownWithUpdateInFlight: Serve returns within ShutdownGrace and
// ShutdownCancel (and a little) although an update that takes seconds is
// running; the update is rolled back.
func TestShutdownWithUpdateInFlight(t *testing.T) {
	e := newEnv(t, chainGraph(100, 100), "path(X, Z) :- edge(X, Z).\n", nil)
	before := e.state()
	e.srv.hook = holdFirstUntilDone()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.srv.Serve(ctx, ln) }()
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post("http://"+ln.Addr().String()+"/v1/rules", "application/json", strings.NewReader(chainRule))
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took > ShutdownGrace+ShutdownCancel+time.Second {
		t.Errorf("Serve returned %s after its context ended", took)
	}
	if code := <-answered; code == http.StatusOK {
		t.Errorf("the update finished: the hook did not hold it")
	}
	e.srv.wmu.Lock() // the handler is done
	e.srv.stopping.Store(false)
	e.srv.wmu.Unlock()
	if after := e.state(); after != before {
		t.Errorf("not rolled back:\nbefore %s\nafter  %s", before, after)
	}
}
