package linkpred

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes the report as a text table for a person to read: a
// line counting the queries, then the MRR and Hits@10, @3 and @1 of all
// queries, the head and the tail ones, with a column group per tie policy
// (optimistic, pessimistic, expected), three decimals each.
func (r *Report) WriteTable(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%d queries (%d head, %d tail), filtered ranking\n\n", r.Queries, r.HeadQueries, r.TailQueries); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\toptimistic\t\t\t\tpessimistic\t\t\t\texpected\t\t\t\t")
	fmt.Fprintln(tw, "\tMRR\tH@10\tH@3\tH@1\tMRR\tH@10\tH@3\tH@1\tMRR\tH@10\tH@3\tH@1\t")
	row := func(name string, get func(*Metrics) Summary) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, m := range []*Metrics{&r.Optimistic, &r.Pessimistic, &r.Expected} {
			s := get(m)
			fmt.Fprintf(tw, "%.3f\t%.3f\t%.3f\t%.3f\t", s.MRR, s.Hits10, s.Hits3, s.Hits1)
		}
		fmt.Fprintln(tw)
	}
	row("all", func(m *Metrics) Summary { return m.Summary })
	row("head", func(m *Metrics) Summary { return m.Head })
	row("tail", func(m *Metrics) Summary { return m.Tail })
	return tw.Flush()
}
