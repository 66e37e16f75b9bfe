package miner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// MinedRule is one rule read off a model, with the numbers behind it.
type MinedRule struct {
	// Rule is the datalog rule with its weight; its Comment is empty (see
	// [MinedRule.Datalog]).
	Rule datalog.Rule
	// Head is the head relation (Rule.Head.Pred).
	Head string
	// Score is the raw DRUM score of the body, Σ_j Π_t a_{j,t,k_t}.
	Score float64
	// Ranks are the per-rank terms of Score, rank by rank.
	Ranks []float64
	// Counted reports whether Support and Body were counted on a graph.
	Counted bool
	// Support is the number of pairs (A, B) that the body connects and
	// for which the head fact holds in the graph.
	Support int
	// Body is the number of pairs (A, B) that the body connects.
	Body int
	// Starts is, when Support and Body are estimates, the number of
	// entities a grounding of the body can start from, and Sampled the
	// number of them counted: counting stopped at the support budget and
	// the counts of a seeded uniform sample of the starts were scaled by
	// Starts/Sampled. Both are 0 when the counts are exact.
	Sampled, Starts int
	// Confidence is Support/Body, the unsmoothed confidence on the graph;
	// 0 when Body is 0 or the support was not counted.
	Confidence float64
	// Calibrated reports that Weight is the rule's smoothed confidence on
	// the graph (the default, [WeightConfidence]) rather than a normalised
	// DRUM score: only such rules are listed in tie groups (see
	// [MergeRules]).
	Calibrated bool
	// FromGraph marks a rule learned from the graph itself (a rule with
	// constants, see [Graph.ConstantRules]) rather than read off the
	// attention; its Score and Ranks are zero.
	FromGraph bool
}

// Comment returns the comment written above the rule in a mined file:
// "score=S ranks=R1,R2,…" (a rule learned from the graph: "from the
// graph"), then, when the support was counted,
// " support=N body=M" and, when M > 0, " conf=C"; numbers with four
// significant digits. Estimated counts are written "support~N body~M",
// followed by " sample=K/S" (K of the S starts counted).
func (r MinedRule) Comment() string {
	var sb strings.Builder
	if r.FromGraph {
		sb.WriteString("from the graph")
	} else {
		fmt.Fprintf(&sb, "score=%s ranks=", fmtG(r.Score))
		for j, v := range r.Ranks {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(fmtG(v))
		}
	}
	if r.Counted {
		eq := "="
		if r.Starts > 0 {
			eq = "~"
		}
		fmt.Fprintf(&sb, " support%s%d body%s%d", eq, r.Support, eq, r.Body)
		if r.Body > 0 {
			sb.WriteString(" conf=" + fmtG(r.Confidence))
		}
		if r.Starts > 0 {
			fmt.Fprintf(&sb, " sample=%d/%d", r.Sampled, r.Starts)
		}
	}
	return sb.String()
}

// Datalog returns the rule with its [MinedRule.Comment] set, as a mined
// file prints it.
func (r MinedRule) Datalog() datalog.Rule {
	d := r.Rule
	d.Comment = r.Comment()
	return d
}

// DatalogRules returns the rules of rs with their comments (see
// [MinedRule.Datalog]), in the same order.
func DatalogRules(rs []MinedRule) []datalog.Rule {
	out := make([]datalog.Rule, len(rs))
	for i := range rs {
		out[i] = rs[i].Datalog()
	}
	return out
}

// candidate is one extracted rule before normalisation.
type candidate struct {
	MinedRule
	key    string
	path   []pathStep
	smooth float64 // support/(body+smoothing), the confidence weight
	visits int     // edge visits its support count took
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// roundSig rounds v > 0 to n significant digits (never to 0).
func roundSig(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	if r <= 0 {
		return v
	}
	return min(r, 1)
}
