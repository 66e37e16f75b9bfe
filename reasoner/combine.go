package reasoner

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/store"
)

// CheckQuery makes the check Query, Count and Explain make before any
// work: it returns nil when q can be asked of the store st and the program
// prog (which may be nil), and otherwise an error wrapping
// ErrUnknownPredicate and a [datalog.Diagnostics] at q: the predicate is
// neither a relation of st nor defined by a rule or fact of prog (the
// diagnostic suggests the nearest names), or it has another number of
// arguments. An error reading st's relations is returned as it is.
func CheckQuery(st store.Store, prog *datalog.Program, q datalog.Atom) error {
	if prog == nil {
		prog = &datalog.Program{}
	}
	return checkQuery(st, prog, q)
}

// NoisyOr rescores answers, the answers Query gave for q over st and prog
// with opt, by noisy-or over the rules of prog whose head predicate is q's:
// an answer's confidence becomes 1 − Π(1 − c_r), c_r being its best
// confidence through rule r (each rule one source, in program order), when
// that is higher than the confidence it has (a stored fact, or one derived
// another way, keeps its confidence when higher). It is a final scoring
// pass: recursion inside the rules still combines derivations with max, and
// opt.Explain is ignored (proofs stay those of the best derivation). The
// result is sorted by confidence, descending, then by values; answers is
// not modified. With no rule for q's predicate, answers is returned as it
// is.
func NoisyOr(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, answers []Answer, opt Options) ([]Answer, error) {
	return NoisyOrTop(ctx, st, prog, q, answers, 0, opt)
}

// NoisyOrTop is NoisyOr over the top best rules of each answer only: the
// noisy-or of its top highest confidences through single rules (top <= 0
// means all its rules). It is how query scores answers of a relation whose
// mined rules were fitted for noisy_or(top = k).
func NoisyOrTop(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, answers []Answer, top int, opt Options) ([]Answer, error) {
	if prog == nil {
		return answers, nil
	}
	// One auxiliary predicate per rule of the query's predicate: its head
	// with the rule's body.
	ext := &datalog.Program{Facts: prog.Facts, Rules: slices.Clone(prog.Rules)}
	var aux []string
	for i, r := range prog.Rules {
		if r.Head.Pred != q.Pred {
			continue
		}
		name := fmt.Sprintf("_drumql_rule_%d", i)
		nr := r
		nr.Head.Pred = name
		ext.Rules = append(ext.Rules, nr)
		aux = append(aux, name)
	}
	if len(aux) == 0 {
		return answers, nil
	}
	eng, err := Prepare(ctx, st, ext, Options{Min: opt.Min, Threads: opt.Threads})
	if err != nil {
		return nil, err
	}
	keyOf := func(vals []string) string { return strings.Join(vals, "\x00") }
	confs := map[string][]float64{} // per answer, its confidence through each rule that derives it
	for _, name := range aux {
		a := q
		a.Pred = name
		as, err := eng.Query(ctx, a)
		if err != nil {
			return nil, err
		}
		for _, x := range as {
			k := keyOf(x.Values)
			confs[k] = append(confs[k], x.Confidence)
		}
	}
	out := slices.Clone(answers)
	for i := range out {
		if cs, ok := confs[keyOf(out[i].Values)]; ok {
			if top > 0 && len(cs) > top {
				slices.SortFunc(cs, func(a, b float64) int { return cmp.Compare(b, a) })
				cs = cs[:top]
			}
			if c := noisyor.Of(cs); c > out[i].Confidence {
				out[i].Confidence = c
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Answer) int {
		if a.Confidence != b.Confidence {
			if a.Confidence > b.Confidence {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Values, b.Values)
	})
	return out, nil
}
