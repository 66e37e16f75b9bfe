package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve answers HTTP requests on ln with the server's handler until ctx
// is done, then shuts down gracefully: it stops accepting connections and
// lets the requests in flight finish, for up to a minute. It returns the
// error that stopped serving before ctx was done, or the shutdown's
// ("serve: shutting down: ..."); nil after a clean shutdown. The caller
// closes the store after it returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutting down: %w", err)
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
