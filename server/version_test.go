package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// query posts a query and returns its body and the version that answered
// (Drumql-Version, checked against the ETag).
func (e *testEnv) versioned(body string) (string, uint64) {
	e.t.Helper()
	resp, err := e.ts.Client().Post(e.ts.URL+"/v1/query", "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Error(err)
		return "", 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	v, err := strconv.ParseUint(resp.Header.Get("Drumql-Version"), 10, 64)
	if resp.StatusCode != http.StatusOK || err != nil || !strings.HasSuffix(resp.Header.Get("ETag"), fmt.Sprintf("-%d\"", v)) {
		e.t.Errorf("query: %d, version %q, ETag %q: %s", resp.StatusCode, resp.Header.Get("Drumql-Version"), resp.Header.Get("ETag"), b)
	}
	return string(b), v
}

// TestVersions: each answer names the version that answered; an update's
// answer names the version it made, which its client reads from then on
// (its own write); readers during updates each see one version: the same
// version, the same answers.
func TestVersions(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	q := `{"query": "wife(X, Y)?"}`
	if _, v := e.versioned(q); v != 1 {
		t.Fatalf("version at start %d, want 1", v)
	}
	seen := map[uint64]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				body, v := e.versioned(q)
				mu.Lock()
				if prev, ok := seen[v]; ok && prev != body {
					t.Errorf("version %d answered twice differently:\n%s\n%s", v, prev, body)
				}
				seen[v] = body
				mu.Unlock()
			}
		}()
	}
	for i := range 20 {
		b := e.mustDo(http.StatusOK, "POST", "/v1/facts", fmt.Sprintf(`{"add": [["h%d", "husband", "w%d"]]}`, i, i))
		var up struct{ Version uint64 }
		if err := json.Unmarshal(b, &up); err != nil || up.Version != uint64(i+2) {
			t.Fatalf("update %d: version %d (%v), want %d", i, up.Version, err, i+2)
		}
		// read your write: the answer's version is at least the update's,
		// and it holds the new fact
		body, v := e.versioned(q)
		if v < up.Version || !strings.Contains(body, fmt.Sprintf(`"X": "w%d"`, i)) {
			t.Errorf("after update %d (version %d): version %d, %s", i, up.Version, v, body)
		}
	}
	close(stop)
	wg.Wait()
	var st Stats
	if err := json.Unmarshal(e.mustDo(http.StatusOK, "GET", "/v1/stats", ""), &st); err != nil || st.Version != 21 {
		t.Errorf("stats version %d (%v), want 21", st.Version, err)
	}
	// the objects that answer reads say the version in their body too
	for _, r := range [][3]string{{"POST", "/v1/explain", `{"fact": "wife(w0, h0)"}`}, {"GET", "/v1/summary", ""}} {
		var body struct {
			Version uint64
		}
		if err := json.Unmarshal(e.mustDo(http.StatusOK, r[0], r[1], r[2]), &body); err != nil || body.Version != 21 {
			t.Errorf("%s: version %d (%v), want 21", r[1], body.Version, err)
		}
	}
}
