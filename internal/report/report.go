package report

import (
	"bufio"
	"cmp"
	"errors"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/drumql/drumql/internal/english"
)

// Report is the content of the HTML page. Every field is optional; zero
// values render as empty sections or explanatory placeholders.
type Report struct {
	// Title is the page title; empty means "drumql mining report".
	Title string
	// Generated is the creation timestamp as the caller wants it shown. It
	// is not computed here, so the output stays deterministic.
	Generated string
	// Dataset names the data the rules were mined from (a path or a name).
	Dataset string
	// Store is the path of the triple store.
	Store string
	// Config lists the miner configuration (T, rank, epochs, batch, seed…),
	// shown in the given order.
	Config []KV
	// Summary lists headline facts (entities, relations, training queries,
	// epochs run, wall time, peak memory…), shown as cards in the given order.
	Summary []KV
	// Loss is the training-loss curve, one point per batch, in training order.
	Loss []LossPoint
	// ValidLoss holds one validation loss per epoch: ValidLoss[i] belongs to
	// the i-th epoch that appears in Loss. NaN marks a missing value.
	ValidLoss []float64
	// Heads holds the mined rules per head relation, in the order shown.
	Heads []HeadRules
	// Metrics holds the link-prediction metrics; nil means not evaluated.
	Metrics *Metrics
	// Notes are remarks shown prominently near the top, such as "training
	// stopped early by Ctrl-C".
	Notes []string
}

// KV is one name/value pair of [Report.Config] or [Report.Summary].
type KV struct {
	Name  string // shown as the label
	Value string // shown as given
}

// LossPoint is the training loss of one batch.
type LossPoint struct {
	Epoch int // epoch number, as the miner counts them
	Batch int // batch index within the epoch
	// Step is the global batch index, the x coordinate of the chart. If two
	// points share a Step (for example all are left zero), the points'
	// positions in [Report.Loss] are used instead.
	Step int
	Loss float64 // the loss; non-finite values are skipped by the chart
}

// HeadRules holds the rules mined for one head relation.
type HeadRules struct {
	Head string // the head relation, as printed in Datalog
	// Rules are shown best first: those marked First in their order, then
	// the others by decreasing Support × Weight when counted, then Weight
	// (stable).
	Rules []RuleRow
	// Top is the number of rules marked First when they are the rules
	// mine --top keeps (0: none marked).
	Top int
}

// RuleRow is one mined rule.
type RuleRow struct {
	Text    string  // the rule in Datalog syntax, as printed
	Weight  float64 // normalised weight in (0, 1]; drawn as a bar
	Score   float64 // the raw score before normalisation
	Support int     // number of supporting facts; negative means unknown
	// Confidence is the support over the body's groundings (negative:
	// unknown); Example a grounding of the rule in the graph whose head
	// holds, as text ("" when none was looked for).
	Confidence float64
	// First marks a rule of the head's best few for a reader: those
	// mine --top N keeps, shown first.
	First   bool
	Example string
}

// Scores holds the link-prediction metrics of a set of queries under one
// tie policy. Hits are fractions in [0, 1].
type Scores struct {
	MRR    float64
	MR     float64
	Hits1  float64
	Hits3  float64
	Hits10 float64
}

// PolicyMetrics holds one tie policy's metrics over all queries and per
// direction.
type PolicyMetrics struct {
	All  Scores // all queries, both directions
	Head Scores // head predictions (?, r, t)
	Tail Scores // tail predictions (h, r, ?)
}

// Metrics holds the link-prediction evaluation under the three tie policies.
type Metrics struct {
	// Split names the evaluated split, such as "test"; optional.
	Split string
	// Queries, HeadQueries and TailQueries count the evaluated queries;
	// zero counts are not shown.
	Queries, HeadQueries, TailQueries int
	// Optimistic ranks the answer first among tied candidates (the original
	// DRUM code), Pessimistic last, and Expected averages over all tied
	// positions (the honest headline number).
	Optimistic, Pessimistic, Expected PolicyMetrics
}

// Write renders r as a self-contained HTML page to w.
func Write(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: nil Report")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := page.Execute(bw, buildView(r)); err != nil {
		return err
	}
	return bw.Flush()
}

// view is the data of the page template.
type view struct {
	Title, Generated, Dataset, Store string
	Config, Summary                  []KV
	Notes                            []string
	Chart                            template.HTML
	LossStats                        string
	Epochs                           []epochRow
	HasValid                         bool
	Metrics                          *metricsView
	Heads                            []headView
	Rules                            string
}

type epochRow struct {
	Epoch, Batches              string
	Mean, Min, Max, Valid, Last string
}

type metricsView struct {
	Caption string
	Rows    []metricRow
}

type metricRow struct {
	Name  string
	Cells [9]string // Expected, Optimistic, Pessimistic × all, head, tail
}

type headView struct {
	ID, Head   string
	HasSupport bool
	HasExample bool
	Top        int // see HeadRules.Top
	Rules      []ruleView
}

type ruleView struct {
	N, Pct                             int
	Weight, Score, Support, Confidence string
	Text, Example                      string
	First                              bool
}

func buildView(r *Report) *view {
	v := &view{
		Title:     r.Title,
		Generated: r.Generated,
		Dataset:   r.Dataset,
		Store:     r.Store,
		Config:    r.Config,
		Summary:   r.Summary,
		Notes:     r.Notes,
	}
	if v.Title == "" {
		v.Title = "drumql mining report"
	}
	c := newCurve(r.Loss, r.ValidLoss)
	if len(c.buckets) > 0 || c.hasValid() {
		v.Chart = template.HTML(c.svg())
	}
	v.LossStats = c.stats()
	v.Epochs, v.HasValid = c.table()
	if r.Metrics != nil {
		v.Metrics = buildMetrics(r.Metrics)
	}
	v.Heads = make([]headView, len(r.Heads))
	rules := 0
	for i, h := range r.Heads {
		v.Heads[i] = buildHead(i, h)
		rules += len(h.Rules)
	}
	v.Rules = english.Thousands(rules)
	return v
}

func buildHead(i int, h HeadRules) headView {
	rules := slices.Clone(h.Rules)
	// Best first: the rules that predict the most facts most precisely
	// (support × weight), then the most confident.
	value := func(r RuleRow) float64 { return float64(max(r.Support, 0)) * r.Weight }
	first := func(r RuleRow) int {
		if r.First {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(rules, func(a, b RuleRow) int {
		if a.First && b.First {
			return 0 // in the order given
		}
		return cmp.Or(cmp.Compare(first(a), first(b)), cmpDesc(value(a), value(b)), cmpDesc(a.Weight, b.Weight))
	})
	hv := headView{ID: "h" + strconv.Itoa(i+1), Head: h.Head, Top: h.Top, Rules: make([]ruleView, len(rules))}
	for j, rr := range rules {
		w := rr.Weight
		pct := 0
		if w > 0 && !math.IsNaN(w) {
			pct = int(math.Round(math.Min(w, 1) * 100))
		}
		rv := ruleView{N: j + 1, Pct: pct, Weight: fmtFixed(w, 3), Score: fmtG(rr.Score), Text: rr.Text, Example: rr.Example, First: rr.First && h.Top > 0}
		if rr.Support >= 0 {
			hv.HasSupport = true
			rv.Support = strconv.Itoa(rr.Support)
		}
		if rr.Confidence >= 0 && rr.Support >= 0 {
			rv.Confidence = fmtFixed(rr.Confidence, 3)
		}
		hv.HasExample = hv.HasExample || rr.Example != ""
		hv.Rules[j] = rv
	}
	return hv
}

// cmpDesc orders a before b when a is larger; NaN sorts last.
func cmpDesc(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func buildMetrics(m *Metrics) *metricsView {
	mv := &metricsView{}
	caption := "Filtered ranking"
	if m.Split != "" {
		caption += " on " + m.Split
	}
	if m.Queries > 0 {
		caption += ", " + english.Thousands(m.Queries) + " queries"
		if m.HeadQueries > 0 || m.TailQueries > 0 {
			caption += " (" + english.Thousands(m.HeadQueries) + " head, " + english.Thousands(m.TailQueries) + " tail)"
		}
	}
	mv.Caption = caption + "."
	pols := [3]*PolicyMetrics{&m.Expected, &m.Optimistic, &m.Pessimistic}
	rows := []struct {
		name string
		get  func(Scores) string
	}{
		{"MRR", func(s Scores) string { return fmtFixed(s.MRR, 3) }},
		{"MR", func(s Scores) string { return fmtFixed(s.MR, 1) }},
		{"Hits@1", func(s Scores) string { return fmtFixed(s.Hits1, 3) }},
		{"Hits@3", func(s Scores) string { return fmtFixed(s.Hits3, 3) }},
		{"Hits@10", func(s Scores) string { return fmtFixed(s.Hits10, 3) }},
	}
	for _, row := range rows {
		mr := metricRow{Name: row.name}
		for p, pm := range pols {
			mr.Cells[3*p] = row.get(pm.All)
			mr.Cells[3*p+1] = row.get(pm.Head)
			mr.Cells[3*p+2] = row.get(pm.Tail)
		}
		mv.Rows = append(mv.Rows, mr)
	}
	return mv
}

// fmtFixed formats v with dec decimals, without a negative zero; NaN and
// infinities become "–".
func fmtFixed(v float64, dec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if s[0] == '-' && isZero(s[1:]) {
		return s[1:]
	}
	return s
}

func isZero(s string) bool {
	for _, c := range s {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// fmtG formats a raw score compactly with four significant digits.
func fmtG(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
