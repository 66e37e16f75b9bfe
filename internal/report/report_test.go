package report_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/internal/report"
)

var sampleOut = flag.String("sample", "", "TestWriteSample writes a full-size sample report to this file")

// sample returns a deterministic report with heads × rules rules and
// epochs × batches loss points whose loss goes below zero.
func sample(heads, rules, epochs, batches int) *report.Report {
	rng := rand.New(rand.NewPCG(1, 2))
	rels := []string{"/people/person/nationality", "/film/film/genre", "/location/location/contains",
		"/music/artist/origin", "/award/award_winner/awards_won./award/award_honor/award_winner",
		"/people/person/places_lived./people/place_lived/location", "/film/actor/film./film/performance/film"}
	r := &report.Report{
		Title:     "drumql mining report — FB15k-237",
		Generated: "2026-03-14 09:26:53 UTC",
		Dataset:   "datasets/FB15k-237",
		Store:     "./drumql.db",
		Config: []report.KV{{Name: "T", Value: "3"}, {Name: "rank", Value: "3"}, {Name: "epochs", Value: strconv.Itoa(epochs)},
			{Name: "batch", Value: "64"}, {Name: "lr", Value: "0.001"}, {Name: "seed", Value: "42"}},
		Summary: []report.KV{{Name: "entities", Value: "14,541"}, {Name: "relations", Value: "237"},
			{Name: "training queries", Value: "272,115"}, {Name: "epochs run", Value: strconv.Itoa(epochs)},
			{Name: "wall time", Value: "41m12s"}, {Name: "peak memory", Value: "3.2 GiB"}},
		Notes: []string{"Training stopped early by Ctrl-C after epoch " + strconv.Itoa(epochs) + "; the rules are those of the last completed epoch."},
	}
	step := 0
	for e := 1; e <= epochs; e++ {
		for b := range batches {
			t := float64(step) / float64(max(epochs*batches, 1))
			loss := 1.6*math.Exp(-4*t) - 0.45 + 0.18*rng.NormFloat64()*math.Exp(-t)
			r.Loss = append(r.Loss, report.LossPoint{Epoch: e, Batch: b, Step: step, Loss: loss})
			step++
		}
		r.ValidLoss = append(r.ValidLoss, 1.5*math.Exp(-4*float64(e)/float64(epochs))-0.3)
	}
	for h := range heads {
		head := strconv.Quote(rels[h%len(rels)] + "_" + strconv.Itoa(h))
		hr := report.HeadRules{Head: head}
		for j := range rules {
			body := strconv.Quote(rels[(h+j+1)%len(rels)]) + "(X, Z), " + strconv.Quote(rels[(h+2*j+3)%len(rels)]) + "(Z, Y)"
			if j%5 == 0 {
				body = strconv.Quote(rels[(h+j)%len(rels)]) + "(Y, X)"
			}
			w := 1 / (1 + float64(j)*rng.Float64())
			hr.Rules = append(hr.Rules, report.RuleRow{
				Text:    head + "(X, Y) :- " + body + ".",
				Weight:  w,
				Score:   w * 0.37,
				Support: rng.IntN(500) - 20,
			})
		}
		r.Heads = append(r.Heads, hr)
	}
	pm := func(mrr float64) report.PolicyMetrics {
		s := func(d float64) report.Scores {
			m := mrr + d
			return report.Scores{MRR: m, MR: 30 / m, Hits1: m * 0.7, Hits3: m * 1.1, Hits10: math.Min(m*1.6, 1)}
		}
		return report.PolicyMetrics{All: s(0), Head: s(-0.08), Tail: s(0.08)}
	}
	r.Metrics = &report.Metrics{Split: "test", Queries: 40932, HeadQueries: 20466, TailQueries: 20466,
		Optimistic: pm(0.343), Pessimistic: pm(0.301), Expected: pm(0.322)}
	return r
}

func render(t testing.TB, r *report.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestWriteSample renders a full FB15k-237-sized report: 237 heads × 50
// rules and 20 epochs × 1,000 batches. With -sample=FILE it also writes it to
// FILE, which scripts/render-report.sh screenshots.
func TestWriteSample(t *testing.T) {
	r := sample(237, 50, 20, 1000)
	out := render(t, r)
	t.Logf("full-size report: %d bytes", len(out))
	if len(out) > 6<<20 {
		t.Errorf("full-size report is %d bytes, want at most 6 MiB", len(out))
	}
	if !strings.Contains(out, "11,850 rules for 237 head relations") {
		t.Error("page lacks the rule count")
	}
	if got := strings.Count(out, `<td class="w">`); got != 237*50 {
		t.Errorf("%d rule rows, want %d", got, 237*50)
	}
	if *sampleOut != "" {
		if err := os.WriteFile(*sampleOut, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// element is a start tag met while scanning the page.
type element struct {
	name  string
	attrs []xml.Attr
}

// scan parses the page tolerantly, as HTML, and returns its start tags and
// the text of every rule cell (the last cell of each row of a rule table).
func scan(t *testing.T, page string) (elems []element, ruleTexts []string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var stack []string
	inRuleTable := 0
	var cell strings.Builder
	var lastCell string
	inTD, sawTD, ruleTD := false, false, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("parsing the page: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			elems = append(elems, element{tok.Name.Local, slices.Clone(tok.Attr)})
			stack = append(stack, tok.Name.Local)
			if tok.Name.Local == "table" && slices.Contains(tok.Attr, xml.Attr{Name: xml.Name{Local: "class"}, Value: "rt"}) {
				inRuleTable = len(stack)
			}
			if tok.Name.Local == "tr" {
				sawTD = false
			}
			if tok.Name.Local == "td" {
				inTD = true
				ruleTD = slices.Contains(tok.Attr, xml.Attr{Name: xml.Name{Local: "class"}, Value: "rule"})
				sawTD = sawTD || ruleTD
				cell.Reset()
			}
		case xml.CharData:
			if inTD {
				cell.Write(tok)
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "td":
				inTD = false
				if ruleTD {
					lastCell = cell.String()
				}
			case "tr":
				if inRuleTable > 0 && sawTD {
					ruleTexts = append(ruleTexts, lastCell)
				}
			case "table":
				if inRuleTable == len(stack) {
					inRuleTable = 0
				}
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return elems, ruleTexts
}

func TestSelfContained(t *testing.T) {
	r := sample(12, 8, 3, 400)
	r.Dataset = "data/fb" // keep every user string free of URLs
	page := render(t, r)
	for _, bad := range []string{"http://", "https://", "//cdn", "<script", "<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	elems, _ := scan(t, page)
	ids := map[string]bool{}
	for _, e := range elems {
		for _, a := range e.attrs {
			if a.Name.Local == "id" {
				if ids[a.Value] {
					t.Errorf("duplicate id %q", a.Value)
				}
				ids[a.Value] = true
			}
		}
	}
	hrefs := 0
	for _, e := range elems {
		for _, a := range e.attrs {
			switch a.Name.Local {
			case "src", "srcset", "data", "action", "poster":
				t.Errorf("<%s> has %s=%q", e.name, a.Name.Local, a.Value)
			case "href":
				hrefs++
				if !strings.HasPrefix(a.Value, "#") || !ids[a.Value[1:]] {
					t.Errorf("<%s href=%q> is not a link to an anchor of the page", e.name, a.Value)
				}
			}
		}
	}
	if hrefs < 12 {
		t.Errorf("%d in-page links, want at least one per head", hrefs)
	}
}

func TestEscapesRuleText(t *testing.T) {
	tricky := []string{
		`"/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), located(Z, Y).`,
		`"a<b>&c"(X, Y) :- "</td></tr><script>alert('x')</script>"(Y, X).`,
		`'single' & "double" <tag attr="v"> &amp; literal`,
	}
	r := &report.Report{Heads: []report.HeadRules{{Head: `"<head>&"`}}}
	for i, s := range tricky {
		r.Heads[0].Rules = append(r.Heads[0].Rules, report.RuleRow{Text: s, Weight: 1 - float64(i)/10, Support: -1})
	}
	page := render(t, r)
	if strings.Contains(page, "<script>") || strings.Contains(page, `"a<b>&c"`) || strings.Contains(page, "<head>&") {
		t.Error("rule text is not escaped")
	}
	if !strings.Contains(page, `&#34;/people/person/nationality&#34;(X, Y)`) {
		t.Error("quoted predicate name is not escaped as expected")
	}
	_, texts := scan(t, page)
	if !slices.Equal(texts, tricky) {
		t.Errorf("rule cells read back as\n%q\nwant\n%q", texts, tricky)
	}
	if strings.Contains(page, "<th>support</th>") {
		t.Error("support column shown although every support is unknown")
	}
}

// TestRulesBestFirst: a head's rules are shown best first, by support ×
// weight (4, 3.5, 0.6, then the uncounted one), with their confidence and
// example.
func TestRulesBestFirst(t *testing.T) {
	r := &report.Report{Heads: []report.HeadRules{{Head: "p", Rules: []report.RuleRow{
		{Text: "p(X,Y) :- a(X,Y).", Weight: 0.2, Support: 3, Confidence: 0.25},
		{Text: "p(X,Y) :- b(X,Y).", Weight: 1, Support: 4, Confidence: 1, Example: "p(u, v) ⇐ b(u, v)"},
		{Text: "p(X,Y) :- c(X,Y).", Weight: 0.5, Support: -1, Confidence: -1},
		{Text: "p(X,Y) :- d(X,Y).", Weight: 0.5, Support: 7, Confidence: 0.5},
	}}}}
	before := slices.Clone(r.Heads[0].Rules)
	page := render(t, r)
	if !slices.Equal(before, r.Heads[0].Rules) {
		t.Error("Write reordered the caller's rules")
	}
	_, texts := scan(t, page)
	want := []string{"p(X,Y) :- b(X,Y).", "p(X,Y) :- d(X,Y).", "p(X,Y) :- a(X,Y).", "p(X,Y) :- c(X,Y)."}
	if !slices.Equal(texts, want) {
		t.Errorf("rule order %q, want %q", texts, want)
	}
	for _, s := range []string{"<th>support</th>", `style="width:100%"`, `style="width:20%"`, "</i>1.000</td>", "<td>7</td>",
		"<th>confidence</th>", "<td>0.250</td>", "<th>example from the graph</th>", "<td>p(u, v) ⇐ b(u, v)</td>"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// TestRulesTopFirst: the rules marked First (those mine --top keeps) come
// first, in the order given, starred, then the others best first.
func TestRulesTopFirst(t *testing.T) {
	r := &report.Report{Heads: []report.HeadRules{{Head: "p", Top: 2, Rules: []report.RuleRow{
		{Text: "p(X,Y) :- c(X,Y).", Weight: 0.5, Support: -1, Confidence: -1, First: true},
		{Text: "p(X,Y) :- b(X,Y).", Weight: 1, Support: 4, Confidence: 1},
		{Text: "p(X,Y) :- a(X,Y).", Weight: 0.2, Support: 3, Confidence: 0.25, First: true},
		{Text: "p(X,Y) :- d(X,Y).", Weight: 0.5, Support: 7, Confidence: 0.5},
	}}}}
	page := render(t, r)
	_, texts := scan(t, page)
	want := []string{"p(X,Y) :- c(X,Y).", "p(X,Y) :- a(X,Y).", "p(X,Y) :- b(X,Y).", "p(X,Y) :- d(X,Y)."}
	if !slices.Equal(texts, want) {
		t.Errorf("rule order %q, want %q", texts, want)
	}
	if n := strings.Count(page, " ★</td>"); n != 2 || !strings.Contains(page, "the first 2 (marked ★) are those <code>mine --top 2</code> keeps") {
		t.Errorf("%d rules starred, or no note", n)
	}
}

func TestDownsample(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 12345
	pts := make([]report.LossPoint, n)
	for i := range pts {
		pts[i] = report.LossPoint{Step: i, Loss: rng.Float64() - 0.5}
	}
	pts[4321].Loss = 9.5   // a lone spike
	pts[9876].Loss = -7.25 // a lone dip
	pts[100].Loss = math.NaN()
	pts[101].Loss = math.Inf(1)
	bs := report.Downsample(pts, report.MaxChartPoints)
	if len(bs) > report.MaxChartPoints || len(bs) < report.MaxChartPoints/2 {
		t.Fatalf("%d buckets, want at most %d (and not far fewer)", len(bs), report.MaxChartPoints)
	}
	lo, hi, total := math.Inf(1), math.Inf(-1), 0
	for i, b := range bs {
		lo, hi, total = math.Min(lo, b.Min), math.Max(hi, b.Max), total+b.N
		if b.Min > b.Mean || b.Mean > b.Max {
			t.Errorf("bucket %d: mean %v outside [%v, %v]", i, b.Mean, b.Min, b.Max)
		}
		if i > 0 && b.X <= bs[i-1].X {
			t.Errorf("bucket %d: x %v not after %v", i, b.X, bs[i-1].X)
		}
	}
	if lo != -7.25 || hi != 9.5 {
		t.Errorf("extremes [%v, %v], want [-7.25, 9.5]", lo, hi)
	}
	if total != n-2 {
		t.Errorf("buckets hold %d points, want %d finite ones", total, n-2)
	}

	few := pts[200:230]
	bs = report.Downsample(few, report.MaxChartPoints)
	if len(bs) != len(few) {
		t.Fatalf("%d buckets for %d points", len(bs), len(few))
	}
	for i, b := range bs {
		if b.N != 1 || b.Mean != few[i].Loss || b.X != float64(few[i].Step) {
			t.Errorf("bucket %d = %+v, want the point %+v itself", i, b, few[i])
		}
	}
	if bs := report.Downsample(pts, 0); len(bs) != 1 || bs[0].Min != -7.25 || bs[0].Max != 9.5 {
		t.Errorf("Downsample(pts, 0) = %+v, want one bucket with the extremes", bs)
	}
	if bs := report.Downsample(nil, 10); bs != nil {
		t.Errorf("Downsample(nil) = %v", bs)
	}
}

// TestChart checks the SVG of a long run: at most MaxChartPoints vertices in
// the line, a negative y axis with a zero line, epoch markers, a legend.
func TestChart(t *testing.T) {
	page := render(t, sample(1, 1, 30, 2000))
	i := strings.Index(page, `<polyline class="ln" points="`)
	if i < 0 {
		t.Fatal("no loss line")
	}
	pts := page[i+len(`<polyline class="ln" points="`):]
	pts = pts[:strings.IndexByte(pts, '"')]
	if n := len(strings.Fields(pts)); n > report.MaxChartPoints || n < 100 {
		t.Errorf("loss line has %d vertices, want at most %d", n, report.MaxChartPoints)
	}
	for _, s := range []string{`class="zero"`, `class="band"`, `class="eb"`, `class="em"`, `class="vl"`, "epoch mean",
		"validation loss", ">-0.", ">loss</text>", "batch (global step)", "60,000 batches in 30 epochs"} {
		if !strings.Contains(page, s) {
			t.Errorf("chart lacks %q", s)
		}
	}
	if got := strings.Count(page, `<circle class="em"`); got != 31 { // 30 epochs + legend
		t.Errorf("%d epoch-mean markers, want 31", got)
	}
}

func TestEmptyInputs(t *testing.T) {
	page := render(t, &report.Report{})
	for _, s := range []string{"<title>drumql mining report</title>", "No training loss was recorded.", "Not evaluated.", "No rules.", "</html>"} {
		if !strings.Contains(page, s) {
			t.Errorf("empty report lacks %q", s)
		}
	}
	if strings.Contains(page, "<svg") || strings.Contains(page, "ZgotmplZ") {
		t.Error("empty report has a chart or a template filter failure")
	}
	scan(t, page)

	// Degenerate data: one point, NaN losses, a head without rules,
	// validation loss only.
	for name, r := range map[string]*report.Report{
		"one point":    {Loss: []report.LossPoint{{Epoch: 1, Loss: 0.5}}},
		"all NaN":      {Loss: []report.LossPoint{{Epoch: 1, Step: 0, Loss: math.NaN()}, {Epoch: 1, Step: 1, Loss: math.NaN()}}},
		"no steps":     {Loss: []report.LossPoint{{Epoch: 1, Loss: 1}, {Epoch: 1, Loss: 2}, {Epoch: 2, Loss: 0}}},
		"flat":         {Loss: []report.LossPoint{{Epoch: 1, Step: 0, Loss: 0}, {Epoch: 1, Step: 1, Loss: 0}}},
		"valid only":   {ValidLoss: []float64{0.3, math.NaN(), 0.1}},
		"no rules":     {Heads: []report.HeadRules{{Head: "p"}}},
		"zero metrics": {Metrics: &report.Metrics{}},
	} {
		page := render(t, r)
		if strings.Contains(page, "NaN") || strings.Contains(page, "Inf") || strings.Contains(page, "ZgotmplZ") {
			t.Errorf("%s: page contains NaN, Inf or ZgotmplZ", name)
		}
		scan(t, page)
	}
	if err := report.Write(io.Discard, nil); err == nil {
		t.Error("Write(nil) succeeded")
	}
}

func TestMetrics(t *testing.T) {
	r := &report.Report{Metrics: &report.Metrics{Split: "test", Queries: 4000, HeadQueries: 2000, TailQueries: 2000,
		Expected:    report.PolicyMetrics{All: report.Scores{MRR: 0.3217, MR: 181.25, Hits1: 0.25, Hits3: 0.35, Hits10: 0.5}},
		Optimistic:  report.PolicyMetrics{Tail: report.Scores{Hits10: 0.9876}},
		Pessimistic: report.PolicyMetrics{Head: report.Scores{MRR: 0.1111}},
	}}
	page := render(t, r)
	for _, s := range []string{"<td>0.322</td>", "<td>181.2</td>", "<td>0.988</td>", "<td>0.111</td>", "4,000 queries (2,000 head, 2,000 tail)",
		"Expected", "Optimistic", "Pessimistic", "honest headline", "original DRUM code"} {
		if !strings.Contains(page, s) {
			t.Errorf("metrics lack %q", s)
		}
	}
	if strings.Contains(page, "Not evaluated") {
		t.Error("evaluated report says not evaluated")
	}
}

func TestDeterministic(t *testing.T) {
	a := render(t, sample(20, 10, 4, 700))
	b := render(t, sample(20, 10, 4, 700))
	if a != b {
		t.Fatal("two renderings of the same report differ")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestWriteError(t *testing.T) {
	if err := report.Write(failWriter{}, sample(3, 3, 1, 10)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Write to a failing writer: %v", err)
	}
}

// BenchmarkWrite renders the full-size sample.
func BenchmarkWrite(b *testing.B) {
	r := sample(237, 50, 20, 1000)
	for b.Loop() {
		if err := report.Write(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
