package oracle

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// FormatAnswers prints answers one a line: values then the confidence
// (%.6g), "true" for the values of a ground query's answer.
func FormatAnswers(as []eval.Answer) string {
	var b strings.Builder
	for _, a := range as {
		vs := slices.Clone(a.Values)
		if len(vs) == 0 {
			vs = []string{"true"}
		}
		fmt.Fprintf(&b, "%s %.6g\n", strings.Join(vs, " "), a.Confidence)
	}
	return b.String()
}

// DerivedDump prints every derived fact of st, "atom confidence", sorted.
func DerivedDump(t testing.TB, st store.Store) string {
	return dump(t, st, false)
}

// ProofDump prints every derived fact of st with its confidence and
// proof (rule reference and body facts), sorted.
func ProofDump(t testing.TB, st store.Store) string {
	return dump(t, st, true)
}

// dump is DerivedDump, or with proofs ProofDump.
func dump(t testing.TB, st store.Store, proofs bool) string {
	t.Helper()
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range rs {
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			if !proofs {
				lines = append(lines, fmt.Sprintf("%s %.6g", FactString(t, st, d.Fact), d.Confidence))
				continue
			}
			l := fmt.Sprintf("%s %.9g %s", FactString(t, st, d.Fact), d.Confidence, d.Prov.Rule)
			for _, f := range d.Prov.Body {
				l += " " + FactString(t, st, f)
			}
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// FactString prints the fact f of st as an atom, its arguments written as
// the evaluator writes symbols (eval.SymTerm).
func FactString(t testing.TB, st store.Store, f store.Fact) string {
	t.Helper()
	pred, err := st.Name(f.Rel)
	if err != nil {
		t.Fatal(err)
	}
	a := datalog.Atom{Pred: pred}
	for _, id := range f.Args {
		n, err := st.Name(id)
		if err != nil {
			t.Fatal(err)
		}
		a.Args = append(a.Args, eval.SymTerm(n))
	}
	return a.String()
}
