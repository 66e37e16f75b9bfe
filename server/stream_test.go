package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// smallBuffers is a listener whose connections have a small send buffer,
// so that a client that stops reading stalls the server's writes soon; it
// sends them on conns.
type smallBuffers struct {
	net.Listener
	conns chan *net.TCPConn
}

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
		select {
		case l.conns <- tc:
		default:
		}
	}
	return c, err
}

// TestStalledStreamDoesNotBlockUpdates: a client that reads the first line
// of a streamed answer of 10,000 facts and stops reading does not hold up
// an update (which waits for the readers in progress): the update
// completes while the stream is still open, and the rest of the stream,
// read afterwards, is the answer of the state before the update.
func TestStalledStreamDoesNotBlockUpdates(t *testing.T) {
	const n = 10000
	var g strings.Builder
	g.WriteString(testGraph)
	for i := range n {
		fmt.Fprintf(&g, "s%d big o%d\n", i, i)
	}
	e := newEnv(t, g.String(), testRules, nil)
	ts := httptest.NewUnstartedServer(e.srv.Handler())
	served := make(chan *net.TCPConn, 4)
	ts.Listener = smallBuffers{ts.Listener, served}
	ts.Start()
	defer ts.Close()

	// a client with a small receive buffer
	var conn *net.TCPConn
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
			conn = tc
		}
		return c, err
	}}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest("POST", ts.URL+"/v1/query", strings.NewReader(`{"query": "big(X, Y)?"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream: %d %s", resp.StatusCode, b)
	}
	rd := bufio.NewReaderSize(resp.Body, 64)
	first, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %q %v", first, err)
	}
	// The client stops reading here. An update must complete.
	done := make(chan []byte, 1)
	go func() {
		r, err := http.Post(ts.URL+"/v1/facts", "application/json", strings.NewReader(`{"add": [["s_new", "big", "o_new"]]}`))
		if err != nil {
			done <- []byte(err.Error())
			return
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		done <- append([]byte(fmt.Sprintf("%d ", r.StatusCode)), b...)
	}()
	select {
	case b := <-done:
		if !strings.HasPrefix(string(b), "200 ") {
			t.Fatalf("the update failed: %s", b)
		}
	case <-time.After(60 * time.Second):
		// a bound for a failing test only: the update waits on the
		// stalled stream, which never resumes
		t.Fatal("the update did not complete while a streamed answer was stalled (it waits for the stream's reader)")
	}
	// The stream is still open: its rest is the state before the update
	// (read with larger buffers: small ones are slow on loopback).
	_ = conn.SetReadBuffer(1 << 20)
	_ = (<-served).SetWriteBuffer(1 << 20)
	lines := 1
	sawNew := strings.Contains(first, "s_new")
	for {
		l, err := rd.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading the rest of the stream: %v", err)
		}
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil || row["X"] == nil {
			t.Fatalf("line %d: %q (%v)", lines+1, l, err)
		}
		sawNew = sawNew || row["X"] == "s_new"
		lines++
	}
	if lines != n || sawNew {
		t.Errorf("the stream had %d lines (the new fact among them: %v), want %d: the state before the update", lines, sawNew, n)
	}
	if got := len(e.ask("big(X, Y)?")); got != n+1 {
		t.Errorf("after the update: %d answers, want %d", got, n+1)
	}
}

// TestStreamOverCap: a streamed answer of more rows than the fact cap is
// refused (413) before its first line, the server unharmed.
func TestStreamOverCap(t *testing.T) {
	var g strings.Builder
	g.WriteString(testGraph)
	for i := range 12 {
		fmt.Fprintf(&g, "s%d big o%d\n", i, i)
	}
	e := newEnv(t, g.String(), testRules, func(c *Config) { c.MaxFacts = 10 })
	b := e.mustDo(413, "POST", "/v1/query", `{"query": "big(X, Y)?"}`, "Accept", "application/x-ndjson")
	if msg := errorBody(t, b).Error; !strings.Contains(msg, "more than 10 answers (--max-facts)") {
		t.Errorf("413: %s", msg)
	}
	b = e.mustDo(200, "POST", "/v1/query", `{"query": "big(X, Y)?", "top": 10}`, "Accept", "application/x-ndjson")
	if n := strings.Count(string(b), "\n"); n != 10 {
		t.Errorf("top 10: %d lines", n)
	}
	if got := len(e.ask("big(X, Y)?")); got != 12 {
		t.Errorf("%d answers without streaming, want 12", got)
	}
}
