package combine

import (
	"cmp"
	"context"
	"github.com/drumql/drumql/internal/pkgerr"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/store"
)

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
func NoisyOr(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, answers []eval.Answer, opt eval.Options) ([]eval.Answer, error) {
	return NoisyOrTop(ctx, st, prog, q, answers, 0, opt)
}

// NoisyOrTop is NoisyOr over the top best rules of each answer only: the
// noisy-or of its top highest confidences through single rules (top <= 0
// means all its rules). It is how query scores answers of a relation whose
// mined rules were fitted for noisy_or(top = k). The confidences through
// every rule of q's predicate come from one query (the rules tagged with
// their index), so the rules their bodies depend on are evaluated once.
func NoisyOrTop(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, answers []eval.Answer, top int, opt eval.Options) ([]eval.Answer, error) {
	if prog == nil {
		return answers, nil
	}
	confs, ok, err := ruleConfs(ctx, st, prog, q, opt, nil)
	if err != nil || !ok {
		return answers, err
	}
	return rescored(answers, confs, top), nil
}

// ruleConfs returns, for every answer of q over prog, its best confidence
// through each rule of q's predicate that derives it, in program order,
// keyed by the answer's values joined by NUL; ok is false when q's
// predicate has no rule.
//
// With group, an answer's confidences are per group of rules instead: its
// best confidence through the rules of each group (see Grouped), in order
// of each group's first rule.
func ruleConfs(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt eval.Options, group []int32) (confs map[string][]float64, ok bool, err error) {
	// One auxiliary predicate for the rules of the query's predicate: each
	// rule's head, tagged with the rule's index as a first argument, with
	// the rule's body. One query over it gives every answer's confidence
	// through each rule, in one evaluation (a query per rule would
	// evaluate the rules the bodies depend on once per rule).
	const aux = "\x00rule"
	tagged := ruleTagged(prog, headRules(prog, q.Pred), aux)
	if len(tagged) == 0 {
		return nil, false, nil
	}
	ext := &datalog.Program{Facts: prog.Facts, Rules: append(slices.Clone(prog.Rules), tagged...), Thresholds: prog.Thresholds}
	as, err := query.Query(ctx, st, ext, ruleTaggedAtom(q, aux), eval.Options{Min: opt.Min, Threads: opt.Threads, MaxFacts: opt.MaxFacts, MaxMemory: opt.MaxMemory,
		NoMagic: opt.NoMagic, NoRace: opt.NoRace, Speculative: opt.Speculative, Work: opt.Work})
	if err != nil {
		return nil, false, err
	}
	confs, err = ruleConfsOf(q, as, group)
	return confs, err == nil, err
}

// Grouped rescores answers as NoisyOr does, across groups of redundant
// rules (SAFRAN's combination): an answer's confidence becomes the
// noisy-or, over the groups of the rules that derive it, of its best
// confidence through the rules of each group, taken highest first, when
// that is higher than the confidence it has. group[i] is the group of
// prog's rule i; a rule outside group is a group of its own, so a nil group
// is NoisyOr. The result is sorted by confidence, descending, then by
// values; answers is not modified.
func Grouped(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, answers []eval.Answer, group []int32, opt eval.Options) ([]eval.Answer, error) {
	if prog == nil {
		return answers, nil
	}
	if group == nil {
		group = []int32{}
	}
	confs, ok, err := ruleConfs(ctx, st, prog, q, opt, group)
	if err != nil || !ok {
		return answers, err
	}
	// every group counts; highest first, as the rescoring of the top k
	// best rules takes them
	return rescored(answers, confs, math.MaxInt), nil
}

// groupOf is rule's group: group[rule], or -1-rule, a group of its own,
// for a rule outside group.
func groupOf(group []int32, rule int) int64 {
	if rule < len(group) && group[rule] >= 0 {
		return int64(group[rule])
	}
	return -1 - int64(rule)
}

// headRules returns the indices of prog's rules whose head predicate is
// pred.
func headRules(prog *datalog.Program, pred string) []int {
	var out []int
	for i := range prog.Rules {
		if prog.Rules[i].Head.Pred == pred {
			out = append(out, i)
		}
	}
	return out
}

// ruleTagged returns rules idx of prog, each with its head renamed aux
// and tagged with the rule's index in prog as a first argument.
func ruleTagged(prog *datalog.Program, idx []int, aux string) []datalog.Rule {
	out := make([]datalog.Rule, len(idx))
	for k, i := range idx {
		r := prog.Rules[i]
		tag := datalog.Term{Kind: datalog.Symbol, Value: strconv.Itoa(i)}
		r.Head = datalog.Atom{Pred: aux, Args: append([]datalog.Term{tag}, r.Head.Args...), Pos: r.Head.Pos}
		out[k] = r
	}
	return out
}

// ruleTaggedAtom is q over the tagged rules (ruleTagged): any rule tag,
// then q's arguments.
func ruleTaggedAtom(q datalog.Atom, aux string) datalog.Atom {
	return datalog.Atom{Pred: aux, Args: append([]datalog.Term{{Kind: datalog.Var, Value: "\x00R"}}, q.Args...), Pos: q.Pos}
}

// ruleConfsOf returns, from as, the answers of q's tagged atom
// (ruleTaggedAtom), each answer's confidences through the rules that
// derive it, in program order, keyed by its values joined by NUL; with
// group, its best confidence through each group of rules (group[i] is the
// group of rule i; a rule outside group is a group of its own), in order of
// each group's first rule.
func ruleConfsOf(q datalog.Atom, as []eval.Answer, group []int32) (map[string][]float64, error) {
	// Per answer, its confidence through each rule that derives it, in
	// program order.
	type ruleConf struct {
		rule int
		c    float64
	}
	keyOf := func(vals []string) string { return strings.Join(vals, "\x00") }
	byAnswer := map[string][]ruleConf{}
	for _, x := range as {
		i, err := strconv.Atoi(x.Values[0])
		if err != nil {
			return nil, pkgerr.Newf("reasoner: noisy-or %s: rule tag %q: %w", q, x.Values[0], err)
		}
		k := keyOf(x.Values[1:])
		byAnswer[k] = append(byAnswer[k], ruleConf{i, x.Confidence})
	}
	confs := make(map[string][]float64, len(byAnswer))
	for k, rcs := range byAnswer {
		slices.SortFunc(rcs, func(a, b ruleConf) int { return cmp.Compare(a.rule, b.rule) })
		cs := make([]float64, 0, len(rcs))
		var seen map[int64]int // group -> its place in cs
		for _, rc := range rcs {
			if group == nil {
				cs = append(cs, rc.c)
				continue
			}
			g := groupOf(group, rc.rule)
			if seen == nil {
				seen = map[int64]int{}
			}
			if j, ok := seen[g]; ok {
				cs[j] = max(cs[j], rc.c)
				continue
			}
			seen[g] = len(cs)
			cs = append(cs, rc.c)
		}
		confs[k] = cs
	}
	return confs, nil
}

// rescored returns answers rescored by noisy-or: confs holds, per
// answer's values joined by NUL, its confidence through each rule that
// derives it, in program order; only its top best count (top <= 0: all).
// An answer keeps its confidence when that is higher. The result is
// sorted best first, then by values.
func rescored(answers []eval.Answer, confs map[string][]float64, top int) []eval.Answer {
	return rescoredBy(answers, func(vals []string) []float64 { return confs[strings.Join(vals, "\x00")] }, top)
}

// rescoredBy is rescored with each answer's confidences through its rules
// given by confOf (nil: none).
func rescoredBy(answers []eval.Answer, confOf func(vals []string) []float64, top int) []eval.Answer {
	out := slices.Clone(answers)
	for i := range out {
		if cs := confOf(out[i].Values); cs != nil {
			if top > 0 {
				// best first, whatever their number: the product's order
				// is then the same for any answer's top rules, known
				// all or only the strongest (QueryBest)
				slices.SortFunc(cs, func(a, b float64) int { return cmp.Compare(b, a) })
				cs = cs[:min(top, len(cs))]
			}
			if c := noisyor.Of(cs); c > out[i].Confidence {
				out[i].Confidence = c
			}
		}
	}
	slices.SortStableFunc(out, func(a, b eval.Answer) int {
		if a.Confidence != b.Confidence {
			if a.Confidence > b.Confidence {
				return -1
			}
			return 1
		}
		return eval.CompareValues(a.Values, b.Values)
	})
	return out
}
