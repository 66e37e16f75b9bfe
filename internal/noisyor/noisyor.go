// Package noisyor combines independent confidences by noisy-or.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule"). Link prediction's
// aggregators and the reasoner's noisy-or pass over a query's answers both
// compute with [Of].
package noisyor

// Of returns the noisy-or of the confidences cs, 1 − Π(1 − c): the
// probability that at least one of independent sources fires. Each
// confidence is clamped to [0, 1] (NaN passes through), and the product is
// taken in float64 in the order given, so the result is reproducible bit
// for bit. With no confidences it is 0.
func Of[F float32 | float64](cs []F) float64 {
	p := 1.0
	for _, c := range cs {
		p *= 1 - clamp01(float64(c))
	}
	return 1 - p
}

// clamp01 clamps a confidence to [0, 1]; NaN passes through.
func clamp01(c float64) float64 {
	switch {
	case c < 0:
		return 0
	case c > 1:
		return 1
	}
	return c
}
