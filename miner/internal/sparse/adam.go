package sparse

import "math"

// AdamParams are the constants of one Adam step: the bias-corrected learning
// rate, the moments' decay rates, the denominator's epsilon and the
// element-wise gradient clip.
type AdamParams struct {
	LR, Beta1, Beta2, Eps, Clip float64
}

// Adam applies one Adam step to p with gradient g, clipped to ±Clip, and
// the moments m and v (all of the same length), element by element:
//
//	g = min(max(g, −Clip), Clip)
//	m = Beta1·m + (1−Beta1)·g;  v = Beta2·v + (1−Beta2)·g·g
//	p −= LR·m / (√v + Eps)
//
// Every kernel set does the same IEEE operations per element (no fused
// multiply-add), so the result does not depend on it.
func Adam(p, g, m, v []float64, a AdamParams) {
	n := len(p)
	kern.adam(p[:n], g[:n], m[:n], v[:n], a)
}

func refAdam(p, g, m, v []float64, a AdamParams) {
	for i := range p {
		gi := min(max(g[i], -a.Clip), a.Clip)
		mo := float64(a.Beta1*m[i]) + float64((1-a.Beta1)*gi)
		ve := float64(a.Beta2*v[i]) + float64(float64((1-a.Beta2)*gi)*gi)
		m[i], v[i] = mo, ve
		p[i] -= float64(a.LR*mo) / (math.Sqrt(ve) + a.Eps)
	}
}
