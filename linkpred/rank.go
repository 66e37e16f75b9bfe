package linkpred

import "fmt"

// Policy is a way to rank an answer that ties with other candidates.
type Policy int

// The tie policies.
const (
	// Optimistic ranks the answer before every tied candidate (rank L), as
	// the original DRUM and Neural LP evaluation does.
	Optimistic Policy = iota
	// Pessimistic ranks the answer after every tied candidate (rank H).
	Pessimistic
	// Expected averages each metric uniformly over the ranks L..H: its
	// expectation under a random order of the tied candidates.
	Expected
)

// String returns the policy's name as used in reports.
func (p Policy) String() string {
	switch p {
	case Optimistic:
		return "optimistic"
	case Pessimistic:
		return "pessimistic"
	case Expected:
		return "expected"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// Rank is the outcome of ranking one answer: the best and worst rank it can
// take among the candidates that tie with it. L = 1 + #(eligible candidates
// scoring strictly higher), H = L + #(eligible candidates tying with the
// answer); 1 <= L <= H.
type Rank struct {
	L int `json:"l"`
	H int `json:"h"`
}

// MeanRank is the rank under the policy (the expected rank (L+H)/2 for
// Expected).
func (r Rank) MeanRank(p Policy) float64 {
	switch p {
	case Optimistic:
		return float64(r.L)
	case Pessimistic:
		return float64(r.H)
	}
	return float64(r.L+r.H) / 2
}

// Reciprocal is the reciprocal rank under the policy; for Expected, the mean
// of 1/k over k = L..H.
func (r Rank) Reciprocal(p Policy) float64 {
	switch p {
	case Optimistic:
		return 1 / float64(r.L)
	case Pessimistic:
		return 1 / float64(r.H)
	}
	sum := 0.0
	for k := r.H; k >= r.L; k-- { // smallest terms first
		sum += 1 / float64(k)
	}
	return sum / float64(r.H-r.L+1)
}

// Hits is 1 if the rank is at most k and 0 otherwise; for Expected, the
// fraction of the ranks L..H that are at most k.
func (r Rank) Hits(p Policy, k int) float64 {
	switch p {
	case Optimistic:
		return b2f(r.L <= k)
	case Pessimistic:
		return b2f(r.H <= k)
	}
	in := min(r.H, k) - r.L + 1
	if in <= 0 {
		return 0
	}
	return float64(in) / float64(r.H-r.L+1)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
