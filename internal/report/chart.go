package report

import (
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/internal/english"
)

// MaxChartPoints bounds the number of buckets the loss chart draws.
const MaxChartPoints = 1000

// Bucket summarises a run of consecutive loss points for the chart.
type Bucket struct {
	X    float64 // mean x coordinate (Step) of the points
	Mean float64 // mean loss
	Min  float64 // smallest loss
	Max  float64 // largest loss
	N    int     // number of points
}

// Downsample averages the finite losses of points, taken in order, into at
// most maxBuckets buckets of consecutive points of (almost) equal size, using
// Step as the x coordinate. Every bucket keeps its minimum and maximum, so the
// extreme losses of the whole series are the extremes of the buckets' Min and
// Max. With at most maxBuckets finite points each point is its own bucket.
// Non-finite losses are skipped; maxBuckets < 1 is taken as 1.
func Downsample(points []LossPoint, maxBuckets int) []Bucket {
	finite := make([]LossPoint, 0, len(points))
	for _, p := range points {
		if !math.IsNaN(p.Loss) && !math.IsInf(p.Loss, 0) {
			finite = append(finite, p)
		}
	}
	n := len(finite)
	if n == 0 {
		return nil
	}
	k := min(n, max(maxBuckets, 1))
	out := make([]Bucket, k)
	for b := range k {
		lo, hi := b*n/k, (b+1)*n/k
		bk := Bucket{Min: math.Inf(1), Max: math.Inf(-1), N: hi - lo}
		var sx, sy float64
		for _, p := range finite[lo:hi] {
			sx += float64(p.Step)
			sy += p.Loss
			bk.Min = math.Min(bk.Min, p.Loss)
			bk.Max = math.Max(bk.Max, p.Loss)
		}
		bk.X = sx / float64(bk.N)
		bk.Mean = sy / float64(bk.N)
		out[b] = bk
	}
	return out
}

// epochSpan is a run of consecutive loss points of one epoch.
type epochSpan struct {
	epoch       int
	first, last float64 // x of the first and last point
	n, finite   int
	sum         float64
	min, max    float64
	lastLoss    float64
}

func (e *epochSpan) mean() float64 {
	if e.finite == 0 {
		return math.NaN()
	}
	return e.sum / float64(e.finite)
}

// curve is the prepared loss data of the chart.
type curve struct {
	buckets []Bucket
	epochs  []epochSpan
	valid   []float64
	points  int // number of loss points
	skipped int // non-finite losses
}

func newCurve(loss []LossPoint, valid []float64) *curve {
	c := &curve{valid: valid, points: len(loss)}
	pts := slices.Clone(loss)
	slices.SortStableFunc(pts, func(a, b LossPoint) int { return a.Step - b.Step })
	for i := 1; i < len(pts); i++ {
		if pts[i].Step == pts[i-1].Step {
			// Steps do not identify the points: use positions.
			pts = slices.Clone(loss)
			for j := range pts {
				pts[j].Step = j
			}
			break
		}
	}
	for i, p := range pts {
		x := float64(p.Step)
		if i == 0 || p.Epoch != pts[i-1].Epoch {
			c.epochs = append(c.epochs, epochSpan{epoch: p.Epoch, first: x, min: math.Inf(1), max: math.Inf(-1), lastLoss: math.NaN()})
		}
		e := &c.epochs[len(c.epochs)-1]
		e.last = x
		e.n++
		if math.IsNaN(p.Loss) || math.IsInf(p.Loss, 0) {
			c.skipped++
			continue
		}
		e.finite++
		e.sum += p.Loss
		e.min = math.Min(e.min, p.Loss)
		e.max = math.Max(e.max, p.Loss)
		e.lastLoss = p.Loss
	}
	c.buckets = Downsample(pts, MaxChartPoints)
	return c
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func (c *curve) hasValid() bool {
	return slices.ContainsFunc(c.valid, finite)
}

// validX returns the x coordinate of the i-th validation loss and whether it
// can be placed: at the end of the i-th epoch, or at i+1 on an epoch axis
// when there are no training points.
func (c *curve) validX(i int) (float64, bool) {
	if len(c.epochs) == 0 {
		return float64(i + 1), true
	}
	if i < len(c.epochs) {
		return c.epochs[i].last, true
	}
	return 0, false
}

// stats describes the loss data in one sentence.
func (c *curve) stats() string {
	if c.points == 0 {
		if c.hasValid() {
			return "No training loss was recorded; the chart shows the validation loss per epoch."
		}
		return ""
	}
	var b strings.Builder
	b.WriteString(english.Thousands(c.points))
	b.WriteString(english.Plural(c.points, " batch", " batches"))
	b.WriteString(" in ")
	b.WriteString(english.Thousands(len(c.epochs)))
	b.WriteString(english.Plural(len(c.epochs), " epoch", " epochs"))
	if len(c.buckets) > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, bk := range c.buckets {
			lo, hi = math.Min(lo, bk.Min), math.Max(hi, bk.Max)
		}
		b.WriteString("; loss from " + fmtG(lo) + " to " + fmtG(hi))
		if m := c.epochs[len(c.epochs)-1].mean(); finite(m) {
			b.WriteString(", last epoch mean " + fmtG(m))
		}
	}
	if c.skipped > 0 {
		b.WriteString("; " + english.Thousands(c.skipped) + english.Plural(c.skipped, " non-finite value", " non-finite values") + " not drawn")
	}
	b.WriteString(".")
	if len(c.buckets) < c.points-c.skipped {
		b.WriteString(" The line shows " + english.Thousands(len(c.buckets)) + " averages of about " +
			strconv.Itoa((c.points-c.skipped+len(c.buckets)/2)/len(c.buckets)) +
			" consecutive batches; the band spans their minimum and maximum.")
	}
	return b.String()
}

// table returns the per-epoch rows and whether any has a validation loss.
func (c *curve) table() ([]epochRow, bool) {
	n := max(len(c.epochs), len(c.valid))
	if n == 0 {
		return nil, false
	}
	rows := make([]epochRow, n)
	hasValid := false
	for i := range rows {
		r := epochRow{Epoch: strconv.Itoa(i + 1), Valid: "–", Batches: "–", Mean: "–", Min: "–", Max: "–", Last: "–"}
		if i < len(c.epochs) {
			e := &c.epochs[i]
			r.Epoch = strconv.Itoa(e.epoch)
			r.Batches = english.Thousands(e.n)
			if e.finite > 0 {
				r.Mean, r.Min, r.Max, r.Last = fmtG(e.mean()), fmtG(e.min), fmtG(e.max), fmtG(e.lastLoss)
			}
		}
		if i < len(c.valid) && finite(c.valid[i]) {
			r.Valid = fmtG(c.valid[i])
			hasValid = true
		}
		rows[i] = r
	}
	return rows, hasValid
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 960, 360
	padL, padR     = 64, 20
	padT, padB     = 40, 48
	plotW          = chartW - padL - padR
	plotH          = chartH - padT - padB
)

// svg draws the loss chart.
func (c *curve) svg() string {
	f := c.frame()
	var b strings.Builder
	b.Grow(64 << 10)
	b.WriteString(`<svg class="chart" viewBox="0 0 ` + strconv.Itoa(chartW) + " " + strconv.Itoa(chartH) +
		`" role="img" aria-label="Training loss per batch">`)
	f.grid(&b)
	c.epochBoundaries(&b, f)
	band := c.lossLine(&b, f)
	means := c.epochMeans(&b, f)
	validDrawn := c.validLine(&b, f)
	c.axes(&b)
	// Legend, in the top margin.
	var items []legendItem
	if len(c.buckets) > 0 {
		if band {
			items = append(items, legendItem{"ln", "batch loss (bucket mean)"}, legendItem{"band", "min–max per bucket"})
		} else {
			items = append(items, legendItem{"ln", "batch loss"})
		}
	}
	if means {
		items = append(items, legendItem{"em", "epoch mean"})
	}
	if validDrawn {
		items = append(items, legendItem{"vl", "validation loss"})
	}
	legend(&b, items)
	b.WriteString(`</svg>`)
	return b.String()
}

// chartFrame is the data domain of a chart and its scale to the plot area.
type chartFrame struct {
	xlo, xhi, ylo, yhi, ystep float64
}

// sx and sy map data coordinates to the plot area.
func (f *chartFrame) sx(x float64) float64 { return padL + (x-f.xlo)/(f.xhi-f.xlo)*plotW }
func (f *chartFrame) sy(y float64) float64 { return padT + (f.yhi-y)/(f.yhi-f.ylo)*plotH }

// frame returns the domain of every point drawn, the y range widened to
// whole tick steps.
func (c *curve) frame() *chartFrame {
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, bk := range c.buckets {
		xlo, xhi = math.Min(xlo, bk.X), math.Max(xhi, bk.X)
		ylo, yhi = math.Min(ylo, bk.Min), math.Max(yhi, bk.Max)
	}
	for _, e := range c.epochs {
		xlo, xhi = math.Min(xlo, e.first), math.Max(xhi, e.last)
	}
	for i, v := range c.valid {
		if x, ok := c.validX(i); ok && finite(v) {
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
		}
	}
	if xhi <= xlo {
		xlo, xhi = xlo-1, xhi+1
	}
	if yhi <= ylo {
		d := math.Max(math.Abs(ylo)*0.1, 1)
		ylo, yhi = ylo-d, yhi+d
	}
	ystep := niceStep(yhi-ylo, 6)
	ylo = math.Floor(ylo/ystep) * ystep
	yhi = math.Ceil(yhi/ystep) * ystep
	return &chartFrame{xlo: xlo, xhi: xhi, ylo: ylo, yhi: yhi, ystep: ystep}
}

// grid writes the gridlines with the tick labels of both axes, and the
// zero line when the y range holds 0.
func (f *chartFrame) grid(b *strings.Builder) {
	ydec := decimals(f.ystep)
	var grid strings.Builder
	zero := math.NaN()
	for i := 0; ; i++ {
		y := f.ylo + float64(i)*f.ystep
		if y > f.yhi+f.ystep/2 {
			break
		}
		if math.Abs(y) < f.ystep/2 {
			y = 0
			zero = f.sy(0)
		}
		py := f.sy(y)
		grid.WriteString("M" + f1(padL) + " " + f1(py) + "H" + f1(padL+plotW))
		b.WriteString(`<text x="` + f1(padL-8) + `" y="` + f1(py+4) + `" text-anchor="end">` + fmtFixed(y, ydec) + `</text>`)
	}
	xstep := math.Max(niceStep(f.xhi-f.xlo, 8), 1)
	for x := math.Ceil(f.xlo/xstep) * xstep; x <= f.xhi+1e-9; x += xstep {
		px := f.sx(x)
		grid.WriteString("M" + f1(px) + " " + f1(padT) + "V" + f1(padT+plotH))
		b.WriteString(`<text x="` + f1(px) + `" y="` + f1(padT+plotH+18) + `" text-anchor="middle">` + english.Thousands(int(math.Round(x))) + `</text>`)
	}
	b.WriteString(`<path class="grid" d="` + grid.String() + `"/>`)
	if !math.IsNaN(zero) {
		b.WriteString(`<path class="zero" d="M` + f1(padL) + " " + f1(zero) + "H" + f1(padL+plotW) + `"/>`)
	}
}

// epochBoundaries writes a line between epochs, labelled sparsely.
func (c *curve) epochBoundaries(b *strings.Builder, f *chartFrame) {
	if len(c.epochs) <= 1 {
		return
	}
	every := (len(c.epochs) + 11) / 12
	var d strings.Builder
	for i := 1; i < len(c.epochs); i++ {
		px := f.sx((c.epochs[i-1].last + c.epochs[i].first) / 2)
		d.WriteString("M" + f1(px) + " " + f1(padT) + "V" + f1(padT+plotH))
		if i%every == 0 {
			b.WriteString(`<text class="ep" x="` + f1(px+3) + `" y="` + f1(padT+11) + `">e` + strconv.Itoa(c.epochs[i].epoch) + `</text>`)
		}
	}
	b.WriteString(`<path class="eb" d="` + d.String() + `"/>`)
}

// lossLine writes the batch loss line and, when buckets hold several
// points, their min–max band (reported).
func (c *curve) lossLine(b *strings.Builder, f *chartFrame) (band bool) {
	band = slices.ContainsFunc(c.buckets, func(bk Bucket) bool { return bk.N > 1 })
	if band {
		var d strings.Builder
		for i, bk := range c.buckets {
			if i == 0 {
				d.WriteString("M")
			} else {
				d.WriteString("L")
			}
			d.WriteString(f1(f.sx(bk.X)) + " " + f1(f.sy(bk.Max)))
		}
		for i := len(c.buckets) - 1; i >= 0; i-- {
			d.WriteString("L" + f1(f.sx(c.buckets[i].X)) + " " + f1(f.sy(c.buckets[i].Min)))
		}
		b.WriteString(`<path class="band" d="` + d.String() + `Z"/>`)
	}
	if len(c.buckets) > 0 {
		b.WriteString(`<polyline class="ln" points="`)
		for i, bk := range c.buckets {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f1(f.sx(bk.X)) + "," + f1(f.sy(bk.Mean)))
		}
		b.WriteString(`"/>`)
		if len(c.buckets) == 1 {
			bk := c.buckets[0]
			b.WriteString(`<circle class="lnp" cx="` + f1(f.sx(bk.X)) + `" cy="` + f1(f.sy(bk.Mean)) + `" r="3"/>`)
		}
	}
	return band
}

// epochMeans writes a mark at each epoch's mean loss, and reports whether
// it wrote any.
func (c *curve) epochMeans(b *strings.Builder, f *chartFrame) bool {
	means := false
	for _, e := range c.epochs {
		if m := e.mean(); finite(m) && len(c.epochs) > 1 {
			means = true
			b.WriteString(`<circle class="em" cx="` + f1(f.sx((e.first+e.last)/2)) + `" cy="` + f1(f.sy(m)) + `" r="4"><title>epoch ` +
				strconv.Itoa(e.epoch) + ` mean ` + template.HTMLEscapeString(fmtG(m)) + `</title></circle>`)
		}
	}
	return means
}

// validLine writes the validation loss line with a mark per epoch, and
// reports whether it drew a point.
func (c *curve) validLine(b *strings.Builder, f *chartFrame) bool {
	if !c.hasValid() {
		return false
	}
	drawn := false
	var pts, marks strings.Builder
	for i, v := range c.valid {
		x, ok := c.validX(i)
		if !ok || !finite(v) {
			continue
		}
		drawn = true
		p := f1(f.sx(x)) + "," + f1(f.sy(v))
		if pts.Len() > 0 {
			pts.WriteByte(' ')
		}
		pts.WriteString(p)
		marks.WriteString(`<rect class="vl" x="` + f1(f.sx(x)-3.5) + `" y="` + f1(f.sy(v)-3.5) + `" width="7" height="7"><title>validation loss ` +
			strconv.Itoa(i+1) + `: ` + template.HTMLEscapeString(fmtG(v)) + `</title></rect>`)
	}
	b.WriteString(`<polyline class="vln" points="` + pts.String() + `"/>` + marks.String())
	return drawn
}

// axes writes the axes and their titles.
func (c *curve) axes(b *strings.Builder) {
	b.WriteString(`<path class="axis" d="M` + f1(padL) + " " + f1(padT) + "V" + f1(padT+plotH) + "H" + f1(padL+plotW) + `"/>`)
	xtitle := "batch (global step)"
	if len(c.epochs) == 0 {
		xtitle = "epoch"
	}
	b.WriteString(`<text class="at" x="` + f1(padL+plotW/2) + `" y="` + f1(chartH-8) + `" text-anchor="middle">` + xtitle + `</text>`)
	b.WriteString(`<text class="at" transform="translate(16 ` + f1(padT+plotH/2) + `) rotate(-90)" text-anchor="middle">loss</text>`)
}

// legendItem is one entry of a chart's legend: the class of its mark and
// its label.
type legendItem struct{ class, label string }

// legend writes the legend's items in a row in the top margin.
func legend(b *strings.Builder, items []legendItem) {
	x := float64(padL)
	const ly = 16
	for _, it := range items {
		switch it.class {
		case "ln":
			b.WriteString(`<path class="ln" d="M` + f1(x) + " " + f1(ly) + "h20" + `"/>`)
		case "band":
			b.WriteString(`<rect class="band" x="` + f1(x) + `" y="` + f1(ly-5) + `" width="20" height="10"/>`)
		case "em":
			b.WriteString(`<circle class="em" cx="` + f1(x+10) + `" cy="` + f1(ly) + `" r="4"/>`)
		case "vl":
			b.WriteString(`<path class="vln" d="M` + f1(x) + " " + f1(ly) + "h20" + `"/><rect class="vl" x="` + f1(x+6.5) + `" y="` + f1(ly-3.5) + `" width="7" height="7"/>`)
		}
		b.WriteString(`<text x="` + f1(x+26) + `" y="` + f1(ly+4) + `">` + template.HTMLEscapeString(it.label) + `</text>`)
		x += 26 + 6.6*float64(len([]rune(it.label))) + 22
	}
}

// niceStep returns a step of the form {1, 2, 5}×10^k that divides span into
// about target intervals.
func niceStep(span float64, target int) float64 {
	if span <= 0 || !finite(span) {
		return 1
	}
	raw := span / float64(target)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f <= 1:
		return mag
	case f <= 2:
		return 2 * mag
	case f <= 5:
		return 5 * mag
	}
	return 10 * mag
}

// decimals returns how many decimals tick labels spaced by step need.
func decimals(step float64) int {
	d := int(-math.Floor(math.Log10(step) + 1e-9))
	return max(d, 0)
}

// f1 formats an SVG coordinate with one decimal, dropping a trailing ".0".
func f1(v float64) string {
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		return "0"
	}
	return s
}
