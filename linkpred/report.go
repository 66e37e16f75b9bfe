package linkpred

// Summary holds the metrics of a set of queries under one tie policy.
type Summary struct {
	MRR    float64 `json:"mrr"`
	MR     float64 `json:"mr"`
	Hits1  float64 `json:"hits1"`
	Hits3  float64 `json:"hits3"`
	Hits10 float64 `json:"hits10"`
}

// Metrics holds one tie policy's metrics over all queries (the embedded
// Summary, both directions weighted by their number of queries, as in the
// original DRUM code) and per direction.
type Metrics struct {
	Summary
	Head Summary `json:"head"` // head predictions (?, r, t)
	Tail Summary `json:"tail"` // tail predictions (h, r, ?)
}

// Report is the outcome of [Evaluate].
type Report struct {
	Queries     int     `json:"queries"`
	HeadQueries int     `json:"head_queries"`
	TailQueries int     `json:"tail_queries"`
	Optimistic  Metrics `json:"optimistic"`
	Pessimistic Metrics `json:"pessimistic"`
	Expected    Metrics `json:"expected"`
	// NaN counts NaN scores (each ranked as -Inf). Any is a scorer bug.
	NaN int `json:"nan_scores"`
	// Unindexed counts queries whose answer is not in the entity list; the
	// answer then scores -Inf.
	Unindexed int `json:"unindexed_answers"`
	// Ranks holds every query's rank, in query order, with Options.PerQuery.
	Ranks []Rank `json:"ranks,omitempty"`
	// Scored tells, per query in query order with Options.PerQuery, whether
	// the scorer gave the answer a score above 0 (for rules: whether some
	// rule reaches it).
	Scored []bool `json:"-"`
}

// Metrics returns the metrics of a tie policy.
func (r *Report) Metrics(p Policy) *Metrics {
	switch p {
	case Optimistic:
		return &r.Optimistic
	case Pessimistic:
		return &r.Pessimistic
	case Expected:
		return &r.Expected
	}
	return nil
}

// summarise sums the metrics in query order.
func (r *Report) summarise(qs []Query, ranks []Rank) {
	type acc struct{ rr, mr, h1, h3, h10 float64 }
	var all, head, tail [3]acc
	add := func(a *acc, rk Rank, p Policy) {
		a.rr += rk.Reciprocal(p)
		a.mr += rk.MeanRank(p)
		a.h1 += rk.Hits(p, 1)
		a.h3 += rk.Hits(p, 3)
		a.h10 += rk.Hits(p, 10)
	}
	for i, q := range qs {
		dir := &head
		if q.Inverse {
			dir = &tail
			r.TailQueries++
		} else {
			r.HeadQueries++
		}
		for p := range Policy(3) {
			add(&all[p], ranks[i], p)
			add(&dir[p], ranks[i], p)
		}
	}
	r.Queries = len(qs)
	mean := func(a acc, n int) Summary {
		if n == 0 {
			return Summary{}
		}
		d := float64(n)
		return Summary{MRR: a.rr / d, MR: a.mr / d, Hits1: a.h1 / d, Hits3: a.h3 / d, Hits10: a.h10 / d}
	}
	for p := range Policy(3) {
		m := r.Metrics(p)
		m.Summary = mean(all[p], r.Queries)
		m.Head = mean(head[p], r.HeadQueries)
		m.Tail = mean(tail[p], r.TailQueries)
	}
}
