package maintain

import (
	"slices"
	"strings"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
)

// answerSet is oracle.FormatAnswers sorted by line: answers whose
// confidences are equal to six digits may come in either order (two
// evaluations that join a rule's body in different orders multiply its
// confidences in different orders, which can differ in the last bit).
func answerSet(as []eval.Answer) string {
	lines := strings.SplitAfter(oracle.FormatAnswers(as), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}
