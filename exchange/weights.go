package exchange

import (
	"math"
	"regexp"
	"strconv"
)

// DefaultSmoothing is the number of unseen negative examples added to a
// rule's predictions when its weight is computed from its counts:
// correct/(predicted + 5). It is SAFRAN's UNSEEN_NEGATIVE_EXAMPLES and
// PyClause's num_unseen default, and drumql mine's smoothing
// (miner.DefaultSmoothing).
const DefaultSmoothing = 5

// ReadOptions say how a rule file's confidences become weights (see the
// package documentation). The zero value weights a rule
// correct/predicted, from AMIE's PCA confidence; set Smoothing to
// DefaultSmoothing for the weights of SAFRAN, PyClause and drumql mine.
type ReadOptions struct {
	// Column takes the weight from the file's confidence column as
	// written instead of computing it from the counts.
	Column bool
	// Smoothing is added to the predictions: 0 (or a negative value) for
	// none, the plain confidence correct/predicted, as convert's
	// --smoothing 0.
	Smoothing int
	// Std reads AMIE's standard confidence (Body size, Std Confidence)
	// instead of its PCA confidence (PCA Body size, PCA Confidence).
	Std bool
}

// WriteOptions say how a rule is written in AnyBURL's format.
type WriteOptions struct {
	// Smoothing is the one readers of the written file add (SAFRAN,
	// PyClause, AnyBURL and drumql convert read correct/(predicted + 5)):
	// counts made up for a rule without counts reproduce its weight under
	// it. 0 (or a negative value) means none.
	Smoothing int
}

// smoothing returns the number a smoothing option adds: none for a
// negative value.
func smoothing(s int) int { return max(s, 0) }

// roundSig rounds v > 0 to n significant digits, never to 0 and never
// above 1, as drumql mine rounds its weights.
func roundSig(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	if r <= 0 {
		return v
	}
	return min(r, 1)
}

// weightDigits is the precision of a weight computed from counts.
const weightDigits = 4

// smoothed is the weight of counts: correct/(predicted + s) to 4
// significant digits; 0 when correct is 0.
func smoothed(correct, predicted float64, s int) float64 {
	if correct <= 0 || predicted+float64(s) <= 0 {
		return 0
	}
	return roundSig(correct/(predicted+float64(s)), weightDigits)
}

// fmtG formats a measure for a comment, with 4 significant digits.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// countRe finds the counts drumql mine writes in a rule's comment:
// "support=N body=M" (estimates "support~N body~M").
var countRe = regexp.MustCompile(`\b(support|body)[=~](\d+)\b`)

// commentCounts returns the support and body counts of a rule's comment,
// and false when it has not both.
func commentCounts(comment string) (support, body int64, ok bool) {
	var hasS, hasB bool
	for _, m := range countRe.FindAllStringSubmatch(comment, -1) {
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if m[1] == "support" {
			support, hasS = n, true
		} else {
			body, hasB = n, true
		}
	}
	return support, body, hasS && hasB
}

// countsFor makes up AnyBURL counts for a rule that has none: the
// smallest predicted = 10^k − s (k ≥ 2) and correct = round(w·10^k) whose
// correct/(predicted + s) gives w back to 4 significant digits (predicted
// is raised to correct when w is so close to 1 that correct would pass it).
func countsFor(w float64, s int) (predicted, correct int64) {
	want := roundSig(w, weightDigits)
	for k := 2; k <= 15; k++ {
		d := math.Pow10(k)
		correct = int64(math.Round(w * d))
		predicted = max(int64(d)-int64(s), correct, 1)
		if smoothed(float64(correct), float64(predicted), s) == want {
			return predicted, correct
		}
	}
	return predicted, correct
}
