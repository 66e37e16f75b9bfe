package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
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

// TestRequestProcs: while Serve serves, GOMAXPROCS is RequestProcs higher
// (an evaluation's Threads unchanged), and it is put back when Serve
// returns; a GOMAXPROCS set in the environment is left alone.
func TestRequestProcs(t *testing.T) {
	for _, env := range []string{"", "3"} {
		t.Setenv("GOMAXPROCS", env)
		before := runtime.GOMAXPROCS(0)
		e := newEnv(t, testGraph, testRules, func(c *Config) { c.RequestProcs = 5 })
		threads := e.srv.cfg.Threads
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
		want := before + 5
		if env != "" {
			want = before
		}
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Errorf("GOMAXPROCS=%q: %d while serving, want %d", env, got, want)
		}
		if e.srv.cfg.Threads != threads {
			t.Errorf("GOMAXPROCS=%q: Threads %d while serving, %d before", env, e.srv.cfg.Threads, threads)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Errorf("GOMAXPROCS=%q: %d after Serve, want %d", env, got, before)
		}
	}
}
