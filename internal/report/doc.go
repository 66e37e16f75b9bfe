// Package report renders the HTML report of `drumql mine --report FILE.html`.
//
// [Write] turns a [Report] — the run's configuration and summary, the
// training-loss curve, the mined rules of every head relation and, when the
// run was evaluated, the link-prediction metrics under the three tie policies
// — into one self-contained HTML page: the CSS is inline, the loss chart is an
// inline SVG drawn here, and the page references no network resource (no
// external stylesheet, script, font or image), so it can be mailed, archived
// and opened offline. The page is printable (a print stylesheet hides
// navigation aids and keeps table rows and the chart on one page).
//
// The output depends only on the Report: the caller supplies the timestamp in
// [Report.Generated], rules are sorted stably and nothing iterates a map, so
// rendering the same Report twice yields the same bytes.
//
// Long training runs produce thousands of loss points; the chart draws them
// through [Downsample], which averages them into at most [MaxChartPoints]
// buckets and keeps each bucket's minimum and maximum, drawn as a shaded band,
// so spikes and the extreme values survive. The markup of the rule tables is
// kept compact so that a full FB15k-237 run (237 heads × 50 rules) yields a
// page of a few megabytes.
package report
