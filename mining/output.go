package mining

import (
	"bytes"
	"context"
	"runtime"
	"time"

	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/internal/report"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/rulefile"
	"github.com/drumql/drumql/scoring"
)

// RuleFile is the run's rule file, stamped as mined (rulefile.Stamp): the
// comment of Header, threshold written as @min, the aggregation chosen
// (Directives), the rules and their groups (RuleGroups).
func (r *Run) RuleFile(threshold float64) []byte {
	var buf bytes.Buffer
	rulefile.Write(&buf, r.Header(), threshold, r.Directives, miner.DatalogRules(r.Result.Rules), r.RuleGroups)
	return rulefile.Stamp(buf.Bytes())
}

// MeasureCoverage measures what the run's rules cover on its store and
// graph (scoring.MeasureCoverage) into Coverage. It first collects the
// garbage of the rule step, so that the model's blocks do not add to it.
func (r *Run) MeasureCoverage(ctx context.Context) error {
	// The rule application's candidate lists and engine are garbage
	// now: collect them before the model's blocks are allocated.
	runtime.GC()
	ms := r.ModelSet()
	var err error
	r.Coverage, err = scoring.MeasureCoverage(ctx, r.Store, r.Graph, ms.Models, ms.Heads, r.Result.Rules, r.Tuned)
	return err
}

// WriteReport writes the run's HTML report (Run.Report, with db and took)
// to path, atomically.
func (r *Run) WriteReport(ctx context.Context, path, db string, took time.Duration) error {
	var hb bytes.Buffer
	if err := report.Write(&hb, r.Report(ctx, db, took)); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, hb.Bytes())
}
