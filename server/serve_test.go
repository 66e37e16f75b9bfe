package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestServe: requests are answered until the context is done, then Serve
// returns nil and the listener is closed; a listener that fails stops it
// with its error.
func TestServe(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v1/health: %s", resp.Status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after the context was done: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the context was done")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/v1/health"); err == nil {
		t.Error("the listener still answers after Serve returned")
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	if err := e.srv.Serve(context.Background(), closed); err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve on a closed listener: %v, want its error", err)
	}
}

func TestExposed(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:7474": false, "[::1]:7474": false, "0.0.0.0:7474": true, "192.168.1.2:80": true, "[::]:80": true} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := Exposed(a); got != want {
			t.Errorf("Exposed(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestRequestProcs: an update that runs longer than longUpdate raises
// GOMAXPROCS by RequestProcs until it ends (an evaluation's Threads
// unchanged), and it is put back then; a short update raises nothing; a
// GOMAXPROCS set in the environment is left alone.
func TestRequestProcs(t *testing.T) {
	for _, env := range []string{"", "3"} {
		t.Setenv("GOMAXPROCS", env)
		before := runtime.GOMAXPROCS(0)
		wait := 4 * longUpdate // a raise that does not come
		want := before
		if env == "" {
			wait, want = 20*time.Second, before+5
		}
		var long atomic.Bool
		during := make(chan int, 1)
		e := newEnv(t, testGraph, testRules, func(c *Config) { c.RequestProcs = 5 })
		threads := e.srv.cfg.Threads
		e.srv.hook = func(_ context.Context, stage string) {
			if stage != "applying" {
				return
			}
			if long.Load() { // held until GOMAXPROCS rose, or wait
				deadline := time.Now().Add(wait)
				for runtime.GOMAXPROCS(0) == before && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
			}
			during <- runtime.GOMAXPROCS(0)
		}
		e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["a", "edge", "b"]]}`)
		if d, got := <-during, runtime.GOMAXPROCS(0); d != before || got != before {
			t.Errorf("GOMAXPROCS=%q: a short update: %d during it, %d after, want %d", env, d, got, before)
		}
		long.Store(true)
		e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["b", "edge", "c"]]}`)
		if d := <-during; d != want {
			t.Errorf("GOMAXPROCS=%q: %d during a long update, want %d", env, d, want)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Errorf("GOMAXPROCS=%q: %d after the long update, want %d", env, got, before)
		}
		if e.srv.cfg.Threads != threads {
			t.Errorf("GOMAXPROCS=%q: Threads %d, %d before", env, e.srv.cfg.Threads, threads)
		}
	}
}
