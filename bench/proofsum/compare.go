package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/store"
)

// compare reports how the derived facts of store a and their proofs differ
// from those of store b (`proofsum -db A -against B`). Facts are matched by
// name, so the stores' ids need not agree. A fact whose proof differs
// (another rule text or weight, or other body facts; a rule's file and
// line may differ, as the line does after an edit above it) is classed by the value of
// each proof in its own store: the rule's weight times the confidences of
// the body facts (1 - c for those matching negated literals, 1 for base
// facts). Equal values within a relative 1e-6 are ties: both are best
// derivations, kept in another order. It prints the first show
// differences that are not ties, and returns the counts.
func compare(a, b *store.DB, show int) (diff, error) {
	var n diff
	rels, err := a.Relations()
	if err != nil {
		return n, err
	}
	type idB struct {
		id store.ID
		ok bool // b has the name
	}
	ids := map[store.ID]idB{} // a's id -> b's
	toB := func(id store.ID) (store.ID, bool, error) {
		if x, ok := ids[id]; ok {
			return x.id, x.ok, nil
		}
		name, err := a.Name(id)
		if err != nil {
			return 0, false, err
		}
		x, ok, err := b.Lookup(name)
		if err != nil {
			return 0, false, err
		}
		ids[id] = idB{x, ok}
		return x, ok, nil
	}
	shown := 0
	for _, r := range rels {
		for d, err := range a.ScanDerived(r.Rel) {
			if err != nil {
				return n, err
			}
			n.facts++
			fb, ok, err := translate(d.Fact, toB)
			if err != nil {
				return n, err
			}
			var e store.Derived
			if ok {
				e, ok, err = b.GetDerived(fb)
				if err != nil {
					return n, err
				}
			}
			if !ok {
				n.missing++
				continue
			}
			if d.Confidence != e.Confidence {
				n.confidence++
			}
			sameBody, err := sameFacts(d.Prov.Body, e.Prov.Body, toB)
			if err != nil {
				return n, err
			}
			if sameBody && ruleKey(d.Prov.Rule) == ruleKey(e.Prov.Rule) {
				n.same++
				continue
			}
			va, okA, err := proofValue(a, d.Prov)
			if err != nil {
				return n, err
			}
			vb, okB, err := proofValue(b, e.Prov)
			if err != nil {
				return n, err
			}
			switch {
			case !okA || !okB:
				n.unvalued++
			case math.Abs(va-vb) <= 1e-6*math.Max(va, vb):
				n.ties++
				continue
			case va > vb:
				n.stronger++
			default:
				n.weaker++
			}
			if shown < show {
				shown++
				fmt.Printf("differs: %s %g (proof %g) against %g (proof %g)\n", factName(a, d.Fact), d.Confidence, va, e.Confidence, vb)
			}
		}
	}
	return n, nil
}

// diff counts the derived facts of one store by how they compare with
// another's.
type diff struct {
	facts      int // derived facts
	same       int // with the same proof (rule text, weight and body facts)
	ties       int // with another proof of equal value
	stronger   int // with a proof of more value than the other store's
	weaker     int // with a proof of less value
	unvalued   int // whose proofs differ and do not say their rule's weight
	missing    int // that the other store does not derive
	confidence int // with another confidence than in the other store
}

func (d diff) String() string {
	return fmt.Sprintf("%d derived facts: %d with the same proof, %d with another of equal value (ties), %d with a stronger proof in -db, %d with a stronger proof in -against, %d not valued; %d missing from -against, %d with another confidence",
		d.facts, d.same, d.ties, d.stronger, d.weaker, d.unvalued, d.missing, d.confidence)
}

// translate returns fact f of store a with the ids of the other store
// (toB), false when that store lacks one of its names.
func translate(f store.Fact, toB func(store.ID) (store.ID, bool, error)) (store.Fact, bool, error) {
	rel, ok, err := toB(f.Rel)
	if err != nil || !ok {
		return store.Fact{}, false, err
	}
	g := store.Fact{Rel: rel, Args: make([]store.ID, len(f.Args))}
	for i, x := range f.Args {
		y, ok, err := toB(x)
		if err != nil || !ok {
			return store.Fact{}, false, err
		}
		g.Args[i] = y
	}
	return g, true, nil
}

// sameFacts reports whether the body facts xs (of store a) are ys (of the
// other store).
func sameFacts(xs, ys []store.Fact, toB func(store.ID) (store.ID, bool, error)) (bool, error) {
	if len(xs) != len(ys) {
		return false, nil
	}
	for i, x := range xs {
		g, ok, err := translate(x, toB)
		if err != nil || !ok {
			return false, err
		}
		if g.Rel != ys[i].Rel || !slices.Equal(g.Args, ys[i].Args) {
			return false, nil
		}
	}
	return true, nil
}

// ruleKey is a rule reference without its file, line and column
// ("file<TAB>line<TAB>col<TAB>weight<TAB>[npos<TAB>]text"): the rule's
// weight and text.
func ruleKey(ref string) string {
	f := strings.SplitN(ref, "\t", 4)
	if len(f) < 4 {
		return ref
	}
	return f[3]
}

// proofValue is the value of proof p in store db: the rule's weight times
// its body facts' confidences (1 - c for the facts after the first npos,
// which matched negated literals; 1 for base facts); false when the rule
// reference does not say its weight.
func proofValue(db *store.DB, p store.Provenance) (float64, bool, error) {
	f := strings.Split(p.Rule, "\t")
	if len(f) < 5 {
		return 0, false, nil
	}
	w, err := strconv.ParseFloat(f[3], 64)
	if err != nil {
		return 0, false, nil
	}
	npos := len(p.Body)
	if len(f) >= 6 {
		if k, err := strconv.Atoi(f[4]); err == nil {
			npos = k
		}
	}
	v := w
	for i, b := range p.Body {
		c := 1.0
		d, ok, err := db.GetDerived(b)
		if err != nil {
			return 0, false, err
		}
		if ok {
			c = float64(d.Confidence)
		}
		if i >= npos {
			c = 1 - c
		}
		v *= c
	}
	return v, true, nil
}

// factName is f written by name, or its ids when a name is missing.
func factName(db *store.DB, f store.Fact) string {
	var sb strings.Builder
	if err := writeFact(&sb, db, f); err != nil {
		return fmt.Sprint(f)
	}
	return sb.String()
}
