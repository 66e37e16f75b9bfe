package cluster

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// RunRow is a run as `drumql cluster runs` lists it (its JSON object with
// --format json): RunInfo with the creation time in UTC and the run's age
// in whole seconds when it was listed.
type RunRow struct {
	ID         string    `json:"id"`
	Created    time.Time `json:"created"`
	AgeSeconds int64     `json:"age_seconds"`
	Groups     int       `json:"groups"`
	Done       int       `json:"done"`
	Queued     int       `json:"queued"`
}

// RunRows returns the rows of runs listed at now, in their order; an
// empty slice, not nil, when there is none (a JSON array).
func RunRows(runs []RunInfo, now time.Time) []RunRow {
	rows := make([]RunRow, 0, len(runs))
	for _, r := range runs {
		rows = append(rows, RunRow{ID: r.ID, Created: r.Created.UTC(), AgeSeconds: int64(now.Sub(r.Created).Seconds()),
			Groups: r.Groups, Done: r.Done, Queued: r.Queued})
	}
	return rows
}

// WriteRunsTable writes rows as a table for a person: the run, its age,
// the groups done of all and the jobs queued.
func WriteRunsTable(w io.Writer, rows []RunRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tage\tgroups done\tjobs queued")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\n", r.ID, time.Duration(r.AgeSeconds)*time.Second, r.Done, r.Groups, r.Queued)
	}
	return tw.Flush()
}
