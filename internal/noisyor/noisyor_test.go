package noisyor

import (
	"math"
	"testing"
)

func TestOf(t *testing.T) {
	cases := []struct {
		name string
		cs   []float64
		want float64
	}{
		{"none", nil, 0},
		{"one", []float64{0.3}, 0.3},
		{"two halves", []float64{0.5, 0.5}, 0.75},                 // 1 − 0.5·0.5
		{"three", []float64{0.5, 0.4, 0.2}, 0.76},                 // 1 − 0.5·0.6·0.8
		{"a certain source", []float64{0.2, 1, 0.1}, 1},           // 1 − 0.8·0·0.9
		{"zeros add nothing", []float64{0, 0.25, 0}, 0.25},        // 1 − 1·0.75·1
		{"clamped above 1", []float64{1.5, 0.3}, 1},               // 1.5 counts as 1
		{"clamped below 0", []float64{-0.5, 0.3}, 0.3},            // −0.5 counts as 0
		{"many small", []float64{0.1, 0.1, 0.1, 0.1}, 1 - 0.6561}, // 1 − 0.9⁴
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Of(c.cs); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("Of(%v) = %.15g, want %.15g", c.cs, got, c.want)
			}
			f32 := make([]float32, len(c.cs))
			for i, v := range c.cs {
				f32[i] = float32(v)
			}
			if got := Of(f32); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("Of(float32 %v) = %.9g, want %.9g", f32, got, c.want)
			}
		})
	}
	if got := Of([]float64{0.5, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("Of with a NaN = %v, want NaN", got)
	}
}

// TestOfOrder checks that the product is taken in the order given: the
// float64 result is the left-to-right product, bit for bit.
func TestOfOrder(t *testing.T) {
	cs := []float64{0.1, 0.7, 0.3, 0.9, 0.01}
	p := 1.0
	for _, c := range cs {
		p *= 1 - c
	}
	if got := Of(cs); got != 1-p {
		t.Errorf("Of(%v) = %.17g, want %.17g", cs, got, 1-p)
	}
}
