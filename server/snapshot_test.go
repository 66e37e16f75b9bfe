package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drumql/drumql/store"
)

// read sends a read request and returns the status, the version that
// answered (Drumql-Version) and the body.
func (e *testEnv) read(method, path, body string, header ...string) (int, uint64, []byte, error) {
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, 0, nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	v, _ := strconv.ParseUint(resp.Header.Get("Drumql-Version"), 10, 64)
	return resp.StatusCode, v, b, err
}

// snapGraph is 30 chains of 30 edges: path(c3_0, X) has 1 answer before
// the closure rule (chainRule) and 30 after it.
func snapEnv(t *testing.T, edit func(*Config)) *testEnv {
	return newEnv(t, chainGraph(30, 30), "path(X, Z) :- edge(X, Z).\n", edit)
}

// snapState is what the reads of TestReadsDuringUpdate see of one
// version, or an error.
func (e *testEnv) snapState() (string, uint64, error) {
	var out []string
	var version uint64
	add := func(what string, code int, v uint64, b []byte, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if version == 0 {
			version = v
		}
		if v != version {
			return fmt.Errorf("%s: version %d, the first read's %d", what, v, version)
		}
		out = append(out, fmt.Sprintf("%s: %d %s", what, code, b))
		return nil
	}
	reads := []struct{ what, method, path, body, accept string }{
		{"query", "POST", "/v1/query", `{"query": "path(c3_0, X)?"}`, ""},
		{"lookup", "POST", "/v1/query", `{"query": "edge(c7_3, X)?"}`, ""},
		{"ground", "POST", "/v1/query", `{"query": "path(c3_0, c3_5)?"}`, ""},
		{"noisy-or", "POST", "/v1/query", `{"query": "path(c3_0, X)?", "combine": "noisy-or"}`, ""},
		{"stream", "POST", "/v1/query", `{"query": "path(c3_0, X)?"}`, "application/x-ndjson"},
		{"explain", "POST", "/v1/explain", `{"fact": "path(c3_0, c3_5)"}`, ""},
		{"rules", "GET", "/v1/rules", "", ""},
		{"stats", "GET", "/v1/stats", "", ""},
	}
	for _, r := range reads {
		var h []string
		if r.accept != "" {
			h = []string{"Accept", r.accept}
		}
		code, v, b, err := e.read(r.method, r.path, r.body, h...)
		if r.what == "stats" {
			// the counts and the version, not the times
			var st Stats
			if err == nil {
				err = json.Unmarshal(b, &st)
			}
			b = fmt.Appendf(nil, "version %d base %d derived %d rules %d", st.Version, st.BaseFacts, st.DerivedFacts, st.Rules)
		}
		if err := add(r.what, code, v, b, err); err != nil {
			return "", 0, err
		}
	}
	return strings.Join(out, "\n"), version, nil
}

// TestReadsDuringUpdate: while a rule edit is in flight, held where the
// store already has its derived facts and the materialisation is
// changed but the version is not yet published, eight clients' reads
// (queries through the materialisation's lookup, the store and
// noisy-or, a streamed query, a proof, the rules, the stats) are
// answered, all by the version before the edit, as before it; once the
// edit is answered, by the next version, as from scratch. The version
// before is released: its store view is closed.
func TestReadsDuringUpdate(t *testing.T) {
	e := snapEnv(t, nil)
	before, v0, err := e.snapState()
	if err != nil {
		t.Fatal(err)
	}
	old := e.srv.cur.Load()
	written, release := make(chan struct{}), make(chan struct{})
	e.srv.hook = func(_ context.Context, stage string) {
		if stage == "written" {
			close(written)
			<-release
		}
	}
	edit := make(chan string, 1)
	go func() {
		code, v, b, err := e.read("POST", "/v1/rules", chainRule)
		edit <- fmt.Sprintf("%d version %d %v %.200s", code, v, err, b)
	}()
	<-written
	// The edit is in flight until release is closed: every read below is
	// answered while it is.
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			got, v, err := e.snapState()
			if err == nil && (v != v0 || got != before) {
				err = fmt.Errorf("a read during the edit saw version %d:\n%s\nwant version %d:\n%s", v, got, v0, before)
			}
			errs <- err
		}()
	}
	timeout := time.After(time.Minute) // a failure guard, not a synchronisation
	for range 8 {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-timeout:
			close(release)
			t.Fatal("the reads were not answered while the edit was in flight")
		}
	}
	close(release)
	if got, want := <-edit, fmt.Sprintf("200 version %d <nil>", v0+1); !strings.HasPrefix(got, want) {
		t.Fatalf("the edit: %s, want %s", got, want)
	}
	after, v1, err := e.snapState()
	if err != nil || v1 != v0+1 || after == before || !strings.Contains(after, "explain: 200") || !strings.Contains(after, "c3_30") {
		t.Errorf("after the edit (error %v), version %d:\n%s", err, v1, after)
	}
	if n := old.refs.Load(); n != 0 {
		t.Errorf("the version before the edit is held %d times after it", n)
	}
	if _, err := old.st.Relations(); !errors.Is(err, store.ErrClosed) {
		t.Errorf("the store view of the version before the edit: %v, want it closed", err)
	}
}

// TestReadersSeeOneVersion: readers run before, during and after a rule
// edit (started once each has read, so that some reads overlap it; then
// free) and each answer is the whole of one version: the stats' counts
// and a query's answers are those of the version that says it answered,
// the one before the edit or the one after, never a mix.
func TestReadersSeeOneVersion(t *testing.T) {
	e := snapEnv(t, nil)
	type state struct{ answers, derived, rules int }
	want := map[uint64]state{1: {1, 900, 1}, 2: {30, 30 * 31 / 2 * 30, 2}}
	var first sync.WaitGroup
	applying, release := make(chan struct{}), make(chan struct{})
	e.srv.hook = func(_ context.Context, stage string) {
		if stage == "applying" {
			close(applying)
			<-release
		}
	}
	edit := make(chan int, 1)
	go func() {
		code, _, _, _ := e.read("POST", "/v1/rules", chainRule)
		edit <- code
	}()
	<-applying
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var readers sync.WaitGroup
	for r := range 8 {
		first.Add(1)
		readers.Add(1)
		go func() {
			defer readers.Done()
			var once sync.Once
			defer once.Do(first.Done) // a reader that fails
			for n := 0; ; n++ {
				if n == 1 {
					once.Do(first.Done)
				}
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				var got state
				var v uint64
				var err error
				if r%2 == 0 {
					var code int
					var b []byte
					code, v, b, err = e.read("POST", "/v1/query", `{"query": "path(c3_0, X)?"}`)
					var as []map[string]any
					if err == nil && code == 200 {
						err = json.Unmarshal(b, &as)
					}
					got = want[v]
					got.answers = len(as)
				} else {
					var b []byte
					_, v, b, err = e.read("GET", "/v1/stats", "")
					var st Stats
					if err == nil {
						err = json.Unmarshal(b, &st)
					}
					got = want[v]
					got.derived, got.rules = st.DerivedFacts, st.Rules
					if st.Version != v {
						err = fmt.Errorf("stats of version %d answered as version %d", st.Version, v)
					}
				}
				if w, ok := want[v]; err != nil || !ok || got != w {
					errs <- fmt.Errorf("reader %d: version %d: %+v (%v), want %+v", r, v, got, err, w)
					return
				}
			}
		}()
	}
	first.Wait() // every reader has read during the edit
	close(release)
	if code := <-edit; code != 200 {
		t.Fatalf("the edit: %d", code)
	}
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if _, v, _, _ := e.read("GET", "/v1/stats", ""); v != 2 {
		t.Errorf("after the edit, version %d answers, want 2", v)
	}
}

// TestFailedUpdatePublishesNothing: an update refused past the fact cap,
// and one whose client leaves, both stopped after they began to change
// the materialisation, publish no version: reads during them and after
// them see the version before, with the same answers, and the
// materialisation, rebuilt, answers for that version again.
func TestFailedUpdatePublishesNothing(t *testing.T) {
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("client leaves %v", leave), func(t *testing.T) {
			e := snapEnv(t, func(c *Config) {
				if !leave {
					c.MaxFacts = 2000
				}
			})
			before, v0, err := e.snapState()
			if err != nil {
				t.Fatal(err)
			}
			applying, release := make(chan struct{}), make(chan struct{})
			var stages []string
			e.srv.hook = func(ctx context.Context, stage string) {
				stages = append(stages, stage)
				if stage == "applying" {
					close(applying)
					<-release
					if leave {
						<-ctx.Done() // the server saw the client leave
					}
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			edit := make(chan int, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, "POST", e.ts.URL+"/v1/rules", strings.NewReader(chainRule))
				resp, err := e.ts.Client().Do(req)
				if err != nil {
					edit <- -1
					return
				}
				resp.Body.Close()
				edit <- resp.StatusCode
			}()
			<-applying
			during, vd, err := e.snapState()
			if err != nil || vd != v0 || during != before {
				t.Errorf("during the update (error %v), version %d:\n%s\nwant version %d:\n%s", err, vd, during, v0, before)
			}
			want := http.StatusRequestEntityTooLarge
			if leave {
				cancel()
				want = -1
			}
			close(release)
			if code := <-edit; code != want {
				t.Fatalf("the update: %d, want %d", code, want)
			}
			e.srv.wmu.Lock() // the update is over (rolled back): its stages are all recorded
			reached := slices.Clone(stages)
			e.srv.wmu.Unlock()
			if len(reached) != 1 {
				t.Errorf("the failed update reached the stages %v, want only applying", reached)
			}
			after, va, err := e.snapState()
			if err != nil || va != v0 || after != before {
				t.Errorf("after the failed update (error %v), version %d:\n%s\nwant version %d:\n%s", err, va, after, v0, before)
			}
			e.srv.mmu.RLock()
			m, mver := e.srv.m, e.srv.mver
			e.srv.mmu.RUnlock()
			if m == nil || mver != v0 {
				t.Errorf("after the failed update the materialisation holds version %d (nil: %v), want %d", mver, m == nil, v0)
			}
		})
	}
}
