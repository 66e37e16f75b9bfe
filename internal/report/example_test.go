package report_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/drumql/drumql/internal/report"
)

func ExampleWrite() {
	r := &report.Report{
		Title:     "family rules",
		Generated: "2026-01-02 15:04",
		Config:    []report.KV{{Name: "T", Value: "2"}, {Name: "rank", Value: "3"}},
		Summary:   []report.KV{{Name: "entities", Value: "216"}},
		Loss: []report.LossPoint{
			{Epoch: 1, Batch: 0, Step: 0, Loss: 0.9},
			{Epoch: 1, Batch: 1, Step: 1, Loss: 0.4},
			{Epoch: 2, Batch: 0, Step: 2, Loss: -0.1},
		},
		Heads: []report.HeadRules{{
			Head: `"/people/person/nationality"`,
			Rules: []report.RuleRow{{
				Text:    `"/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), located(Z, Y).`,
				Weight:  1,
				Score:   0.42,
				Support: -1,
			}},
		}},
		// Metrics: nil, so the page says "Not evaluated."
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, r); err != nil {
		fmt.Println(err)
		return
	}
	page := buf.String()
	fmt.Println(strings.Contains(page, "<svg"))
	fmt.Println(strings.Contains(page, `&#34;/people/person/nationality&#34;(X, Y) :-`))
	fmt.Println(strings.Contains(page, "Not evaluated."))
	// Output:
	// true
	// true
	// true
}

func ExampleDownsample() {
	var pts []report.LossPoint
	for i := range 10 {
		pts = append(pts, report.LossPoint{Step: i, Loss: float64(i % 4)})
	}
	for _, b := range report.Downsample(pts, 3) {
		fmt.Printf("x=%.1f mean=%.2f min=%g max=%g n=%d\n", b.X, b.Mean, b.Min, b.Max, b.N)
	}
	// Output:
	// x=1.0 mean=1.00 min=0 max=2 n=3
	// x=4.0 mean=1.33 min=0 max=3 n=3
	// x=7.5 mean=1.50 min=0 max=3 n=4
}
