// Command serveload is the load generator of bench/serve-load.sh: it sends
// goal-directed queries to a running drumql serve from C concurrent
// clients for a while and prints the latency percentiles and the
// throughput.
//
//	go run ./bench/serveload -url http://127.0.0.1:7474 -queries q.txt -clients 8 -for 20s
//
// q.txt holds one query per line ("wife(X, marc_ueda)?"); each client walks
// the list from its own offset. Every answer must be 200: any other status
// is counted and printed. With -write-rate R, one more client sends R
// updates a second while the readers run, each adding -write-facts new
// base facts of relation -write-rel (then, the next update, removing
// them), and its latencies are printed apart, with the share of the
// server's time its updates took (drumql_update_duration_seconds in
// /metrics). With -update BODY, one POST /v1/rules of BODY (a long rule
// edit) is sent when the readers start, and they run until it is
// answered: the latencies printed are those of the reads during it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:7474", "the server")
	file := flag.String("queries", "", "file of queries, one per line")
	clients := flag.Int("clients", 8, "concurrent clients")
	dur := flag.Duration("for", 20*time.Second, "how long to send queries")
	top := flag.Int("top", 10, "answers per query")
	combine := flag.String("combine", "", "the query's combine (max, noisy-or, ...; empty: the rule files' @aggregate)")
	writeRate := flag.Float64("write-rate", 0, "updates a second sent beside the readers (0: none)")
	writeFacts := flag.Int("write-facts", 10, "base facts each update adds or removes")
	writeRel := flag.String("write-rel", "husband", "the relation of the facts the updates add")
	update := flag.String("update", "", "a POST /v1/rules body sent once as the readers start; they run until it is answered")
	slowest := flag.Int("slowest", 0, "print the N slowest queries, with when they were sent")
	flag.Parse()
	qs, err := readLines(*file)
	if err != nil || len(qs) == 0 {
		fmt.Fprintln(os.Stderr, "serveload: -queries:", err, len(qs), "queries")
		os.Exit(2)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: *clients}
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	var mu sync.Mutex
	var lat []time.Duration
	type slow struct{ at, took time.Duration }
	var slows []slow
	bad := map[int]int{}
	deadline := time.Now().Add(*dur)
	running := func() bool { return time.Now().Before(deadline) }
	var wg sync.WaitGroup
	start := time.Now()
	busy0 := updateSeconds(client, *url)
	var updated time.Duration
	if *update != "" {
		// the readers run while the update does
		done := make(chan struct{})
		running = func() bool {
			select {
			case <-done:
				return false
			default:
				return true
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			var body any
			if err := json.Unmarshal([]byte(*update), &body); err != nil {
				fmt.Fprintln(os.Stderr, "serveload: -update:", err)
				os.Exit(2)
			}
			updated, _ = post(client, *url+"/v1/rules", body, &mu, bad)
		}()
	}
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			var mySlow []slow
			for i := c * len(qs) / *clients; running(); i++ {
				req := map[string]any{"query": qs[i%len(qs)], "top": *top}
				if *combine != "" {
					req["combine"] = *combine
				}
				if d, ok := post(client, *url+"/v1/query", req, &mu, bad); ok {
					mine = append(mine, d)
					if *slowest > 0 {
						mySlow = append(mySlow, slow{time.Since(start) - d, d})
					}
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			slows = append(slows, mySlow...)
			mu.Unlock()
		}()
	}
	var writes []time.Duration
	if *writeRate > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			writes = writer(client, *url, *writeRate, *writeFacts, *writeRel, deadline, &mu, bad)
		}()
	}
	wg.Wait()
	el := time.Since(start)
	busy := updateSeconds(client, *url) - busy0
	if len(lat) == 0 {
		fmt.Fprintln(os.Stderr, "serveload: no query was answered", bad)
		os.Exit(1)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	how := "combine " + *combine
	if *combine == "" {
		how = "the files' @aggregate"
	}
	fmt.Printf("%s: %d queries from %d clients in %.1f s: %.0f queries/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		how, len(lat), *clients, el.Seconds(), float64(len(lat))/el.Seconds(),
		ms(pct(0.5)), ms(pct(0.99)), ms(lat[len(lat)-1]))
	if len(writes) > 0 {
		slices.Sort(writes)
		fmt.Printf("beside them %d updates of %d facts (%.1f a second): p50 %.2f ms, max %.2f ms; the server spent %.2f s in updates (%.1f%% of %.1f s)\n", len(writes), *writeFacts,
			float64(len(writes))/el.Seconds(), ms(writes[len(writes)/2]), ms(writes[len(writes)-1]), busy, 100*busy/el.Seconds(), el.Seconds())
	}
	if *slowest > 0 {
		slices.SortFunc(slows, func(a, b slow) int { return int(b.took - a.took) })
		for _, q := range slows[:min(*slowest, len(slows))] {
			fmt.Printf("  a query sent at %.3f s took %.2f ms\n", q.at.Seconds(), ms(q.took))
		}
	}
	if *update != "" {
		fmt.Printf("the reads above ran during one rule edit, answered in %.1f s\n", updated.Seconds())
	}
	if len(bad) > 0 {
		fmt.Printf("not 200: %v (status -1: transport errors)\n", bad)
		os.Exit(1)
	}
}

// writer sends rate updates a second until deadline, alternately adding
// n new facts of rel and removing them, and returns their latencies.
func writer(client *http.Client, url string, rate float64, n int, rel string, deadline time.Time, mu *sync.Mutex, bad map[int]int) []time.Duration {
	var out []time.Duration
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for i := 0; time.Now().Before(deadline); i++ {
		<-tick.C
		var facts [][]string
		for j := range n {
			facts = append(facts, []string{fmt.Sprintf("serveload_s%d_%d", i/2, j), rel, fmt.Sprintf("serveload_o%d_%d", i/2, j)})
		}
		key := "add"
		if i%2 == 1 {
			key = "remove"
		}
		if d, ok := post(client, url+"/v1/facts", map[string]any{key: facts}, mu, bad); ok {
			out = append(out, d)
		}
	}
	return out
}

// post sends v as JSON to url and returns how long the answer took, read
// whole; a transport error counts as status -1 in bad and returns false,
// and an answer other than 200 is counted under its status.
func post(client *http.Client, url string, v any, mu *sync.Mutex, bad map[int]int) (time.Duration, bool) {
	body, _ := json.Marshal(v)
	t := time.Now()
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		mu.Lock()
		bad[-1]++
		mu.Unlock()
		return 0, false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(t)
	if resp.StatusCode != http.StatusOK {
		mu.Lock()
		bad[resp.StatusCode]++
		mu.Unlock()
	}
	return d, true
}

// updateSeconds is the server's time spent in updates so far (the sum of
// drumql_update_duration_seconds in /metrics), 0 if it cannot be read.
func updateSeconds(client *http.Client, url string) float64 {
	resp, err := client.Get(url + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "drumql_update_duration_seconds_sum "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}
