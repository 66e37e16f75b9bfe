package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/drumql/drumql/internal/servefile"
)

// ShutdownGrace is how long Serve lets the requests in flight finish once
// its context is done; then it cancels them (an update is rolled back)
// and waits at most ShutdownCancel for their handlers to return.
const (
	ShutdownGrace  = time.Second
	ShutdownCancel = 500 * time.Millisecond
)

// Serve answers HTTP requests on ln with the server's handler until ctx
// is done, then shuts down: it stops accepting connections and lets the
// requests in flight finish for ShutdownGrace, then cancels those still
// running (an update is rolled back: the store, the rule files and the
// edits file as before it) and waits for them for ShutdownCancel at most:
// a SIGTERM is obeyed within 2 s whatever is running. It returns the
// error that stopped serving before ctx was done; nil after a shutdown.
// While it serves, Config.DB/serve.addr names it. The caller closes the
// store after it returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancelAll := context.WithCancel(context.Background())
	defer cancelAll()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	if s.cfg.DB != "" {
		if err := servefile.Write(s.cfg.DB, "http://"+ln.Addr().String()); err != nil {
			return err
		}
		defer servefile.Remove(s.cfg.DB)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.stopping.Store(true)
	defer s.stopImage()
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err == nil {
		return nil
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: shutting down: %w", err)
	}
	// Requests still running: cancel them, close their connections, and
	// wait (bounded) for their handlers, which roll back.
	cancelAll()
	_ = srv.Close()
	done := make(chan struct{})
	go func() { s.active.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(ShutdownCancel):
	}
	return nil
}

// Exposed reports whether addr, the address a server listens on, is
// reachable from other machines: not a loopback address.
func Exposed(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// DefaultRequestProcs is drumql serve's Config.RequestProcs. On two cores
// 6 more (8 in all) for the whole time it served kept the longest lookup
// during the chain's rule edit under 100 ms, but the lookups beside 5
// small updates a second fell to 61% of read-only (more threads spinning
// for work, and the collector's workers taking both cores); hence only
// while an update runs long (docs/BENCHMARKS.md).
const DefaultRequestProcs = 6

// longUpdate is how long an update runs before it raises GOMAXPROCS by
// Config.RequestProcs for the rest of it.
const longUpdate = 500 * time.Millisecond

// requestProcs raises GOMAXPROCS by Config.RequestProcs once the update
// that calls it has run longUpdate, unless the environment sets
// GOMAXPROCS, and returns the function that ends the update: it puts
// GOMAXPROCS back. Updates are serialised (wmu), so one raise at a time.
func (s *Server) requestProcs() (done func()) {
	if s.cfg.RequestProcs <= 0 || os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	var mu sync.Mutex
	prev, raised, over := 0, false, false
	t := time.AfterFunc(longUpdate, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			prev = runtime.GOMAXPROCS(0)
			runtime.GOMAXPROCS(prev + s.cfg.RequestProcs)
			raised = true
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		over = true
		if raised {
			runtime.GOMAXPROCS(prev)
		}
	}
}
