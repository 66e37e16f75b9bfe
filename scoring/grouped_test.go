package scoring

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// bruteRule is a rule of newBruteCase's random programs: head(X, Y) :-
// body[0](X, Y) (inverted: body[0](Y, X); twin: body[0](X, Y),
// body[0](X, _), which predicts what the first form does), or with two
// body atoms body[0](X, Z), body[1](Z, Y).
type bruteRule struct {
	head     string
	body     []string
	inverted bool
	twin     bool
	weight   float64
}

func (r bruteRule) String() string {
	switch {
	case len(r.body) == 2:
		return fmt.Sprintf("%g :: %s(X, Y) :- %s(X, Z), %s(Z, Y).", r.weight, r.head, r.body[0], r.body[1])
	case r.inverted:
		return fmt.Sprintf("%g :: %s(X, Y) :- %s(Y, X).", r.weight, r.head, r.body[0])
	case r.twin:
		return fmt.Sprintf("%g :: %s(X, Y) :- %s(X, Y), %s(X, _).", r.weight, r.head, r.body[0], r.body[0])
	}
	return fmt.Sprintf("%g :: %s(X, Y) :- %s(X, Y).", r.weight, r.head, r.body[0])
}

// derives reports whether the rule derives head(x, y) from the facts.
func (r bruteRule) derives(facts map[[3]string]bool, ents []string, x, y string) bool {
	switch {
	case len(r.body) == 2:
		for _, z := range ents {
			if facts[[3]string{x, r.body[0], z}] && facts[[3]string{z, r.body[1], y}] {
				return true
			}
		}
		return false
	case r.inverted:
		return facts[[3]string{y, r.body[0], x}]
	}
	return facts[[3]string{x, r.body[0], y}]
}

// bruteCase is a small random graph with random rules.
type bruteCase struct {
	ents   []string
	facts  map[[3]string]bool // the graph
	known  map[[3]string]bool // the graph and every split: the filter
	valid  []store.NamedTriple
	test   []store.NamedTriple
	rules  []bruteRule
	st     store.Store
	source string
}

func newBruteCase(t *testing.T, seed uint64) *bruteCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 48))
	rels := []string{"r0", "r1", "r2"}
	c := &bruteCase{facts: map[[3]string]bool{}, known: map[[3]string]bool{}}
	for i := range 9 + rng.IntN(4) {
		c.ents = append(c.ents, fmt.Sprint("e", i))
	}
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	add := func(nt store.NamedTriple, split string) bool {
		k := [3]string{nt.S, nt.R, nt.O}
		if c.known[k] {
			return false
		}
		c.known[k] = true
		if split == "" {
			c.facts[k] = true
			b.Graph = append(b.Graph, nt)
		} else {
			b.Splits[split] = append(b.Splits[split], nt)
		}
		return true
	}
	pick := func() string { return c.ents[rng.IntN(len(c.ents))] }
	for i, e := range c.ents { // every entity in the graph
		add(store.NamedTriple{S: e, R: rels[i%len(rels)], O: c.ents[(i+1)%len(c.ents)]}, "")
	}
	for range 14 + rng.IntN(10) {
		add(store.NamedTriple{S: pick(), R: rels[rng.IntN(len(rels))], O: pick()}, "")
	}
	// One or two valid triples per relation: the group triples, whose
	// predictions are small enough for exact sketches.
	for _, r := range rels {
		for n := 1 + rng.IntN(2); n > 0; {
			nt := store.NamedTriple{S: pick(), R: r, O: pick()}
			if add(nt, "valid") {
				c.valid = append(c.valid, nt)
				n--
			}
		}
	}
	for range 6 {
		nt := store.NamedTriple{S: pick(), R: rels[rng.IntN(len(rels))], O: pick()}
		if add(nt, "test") {
			c.test = append(c.test, nt)
		}
	}
	weights := []float64{0.2, 0.3, 0.5, 0.7, 0.9}
	seen := map[string]bool{}
	for range 10 + rng.IntN(8) {
		r := bruteRule{head: rels[rng.IntN(len(rels))], weight: weights[rng.IntN(len(weights))]}
		switch rng.IntN(3) {
		case 0:
			r.body = []string{rels[rng.IntN(len(rels))]}
		case 1:
			r.body, r.inverted = []string{rels[rng.IntN(len(rels))]}, true
		default:
			r.body = []string{rels[rng.IntN(len(rels))], rels[rng.IntN(len(rels))]}
		}
		if r.body[0] == r.head && len(r.body) == 1 && !r.inverted {
			continue // r(X, Y) :- r(X, Y) predicts the known
		}
		if s := fmt.Sprint(r.head, r.body, r.inverted); !seen[s] {
			seen[s] = true
			c.rules = append(c.rules, r)
			if len(r.body) == 1 && !r.inverted && rng.IntN(2) == 0 {
				twin := r
				twin.twin, twin.weight = true, weights[rng.IntN(len(weights))]
				c.rules = append(c.rules, twin) // Jaccard 1 with r
			}
		}
	}
	var sb strings.Builder
	for _, r := range c.rules {
		fmt.Fprintln(&sb, r)
	}
	c.source = sb.String()
	c.st = store.NewMemory()
	if _, err := c.st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// predictions returns the candidates rule i gives the query (given, head,
// ?) (tail: given is the subject) or (?, head, given).
func (c *bruteCase) predictions(i int, head, given string, tail bool) []string {
	var out []string
	r := c.rules[i]
	if r.head != head {
		return nil
	}
	for _, e := range c.ents {
		x, y := e, given
		if tail {
			x, y = given, e
		}
		if r.derives(c.facts, c.ents, x, y) {
			out = append(out, e)
		}
	}
	return out
}

// groups returns the groups of head's rules at overlap: the connected
// sets of the rules whose exact predictions on head's valid triples, each
// asked both ways, have a Jaccard index of at least overlap (and above 0).
func (c *bruteCase) groups(t *testing.T, head string, overlap float64) []int {
	sets := make([]map[string]bool, len(c.rules))
	for i := range c.rules {
		sets[i] = map[string]bool{}
		for k, vt := range c.valid {
			if vt.R != head {
				continue
			}
			for _, e := range c.predictions(i, head, vt.S, true) {
				sets[i][fmt.Sprint(k, "t", e)] = true
			}
			for _, e := range c.predictions(i, head, vt.O, false) {
				sets[i][fmt.Sprint(k, "h", e)] = true
			}
		}
		if len(sets[i]) >= linkpred.SketchSize {
			t.Fatalf("rule %d predicts %d pairs: more than a sketch holds exactly", i, len(sets[i]))
		}
	}
	group := make([]int, len(c.rules))
	for i := range group {
		group[i] = i
	}
	relabel := func(from, to int) {
		for k := range group {
			if group[k] == from {
				group[k] = to
			}
		}
	}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			both := 0
			for k := range sets[i] {
				if sets[j][k] {
					both++
				}
			}
			union := len(sets[i]) + len(sets[j]) - both
			if both > 0 && float64(both)/float64(union) >= overlap && group[i] != group[j] {
				relabel(group[j], group[i])
			}
		}
	}
	return group
}

// key is a candidate's grouped key: the noisy-or of the best confidence
// of each group, then those confidences, highest first.
func bruteKey(confs map[int]float32) []float32 {
	var cs []float32
	for _, c := range confs {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b float32) int { return cmp.Compare(b, a) })
	return append([]float32{float32(noisyor.Of(cs))}, cs...)
}

// rank returns the filtered rank of q's answer under grouped at overlap:
// 1 + the candidates whose key is above the answer's, and 1 + those at
// least as high.
func (c *bruteCase) rank(t *testing.T, names func(store.ID) string, q linkpred.Query, overlap float64) linkpred.Rank {
	head, given, answer := names(q.Rel), names(q.Given), names(q.Answer)
	group := c.groups(t, head, overlap)
	keys := map[string][]float32{}
	for _, e := range c.ents {
		best := map[int]float32{}
		for i, r := range c.rules {
			if slices.Contains(c.predictions(i, head, given, q.Inverse), e) {
				best[group[i]] = max(best[group[i]], float32(r.weight))
			}
		}
		keys[e] = bruteKey(best)
	}
	r := linkpred.Rank{L: 1, H: 1}
	for _, e := range c.ents {
		k := [3]string{e, head, given}
		if q.Inverse {
			k = [3]string{given, head, e}
		}
		if e == answer || c.known[k] {
			continue
		}
		switch slices.Compare(keys[e], keys[answer]) {
		case 1:
			r.L++
			r.H++
		case 0:
			r.H++
		}
	}
	return r
}

// TestGroupedAgainstBruteForce checks the grouped candidates of
// ChooseAggregation against a brute-force scorer on small random graphs
// with random rules: each rule's exact predictions on its relation's valid
// triples, their exact Jaccard index, the connected groups at each
// threshold, max inside a group and noisy-or across, and the filtered
// ranks of the test queries. The rules predict fewer pairs than a sketch
// holds (linkpred.SketchSize), where the sketches' Jaccard index is exact.
func TestGroupedAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	cands := candidates()
	compared, split := 0, 0
	for seed := range uint64(12) {
		c := newBruteCase(t, seed)
		prog, err := parser.ParseString("rules.dl", c.source)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := linkpred.Queries(c.st, "test")
		if err != nil {
			t.Fatal(err)
		}
		filter, err := linkpred.NewFilterFor(c.st, qs)
		if err != nil {
			t.Fatal(err)
		}
		rs, ents, err := NewRuleScorer(ctx, c.st, nil, prog, AggOverride{}, qs, filter)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != len(c.ents) {
			t.Fatalf("seed %d: %d entities ranked, %d in the graph", seed, len(ents), len(c.ents))
		}
		if err := rs.setCandidates(ctx, cands, qs); err != nil {
			t.Fatal(err)
		}
		reps, err := linkpred.EvaluateVariants(ctx, qs, rs, len(cands), filter,
			linkpred.Options{Entities: ents, PerQuery: true, BatchSize: RuleBatch})
		if err != nil {
			t.Fatal(err)
		}
		names := func(id store.ID) string { return rs.names[id] }
		for v, a := range cands {
			if a.Method != "grouped" || a.Value("prior") == 1 {
				continue
			}
			for i, q := range qs {
				want := c.rank(t, names, q, a.Value("threshold"))
				if got := reps[v].Ranks[i]; got != want {
					t.Fatalf("seed %d, %s, query %s(%s) inverse %t answer %s: rank %+v, brute force %+v\nrules:\n%s",
						seed, a.Describe(), names(q.Rel), names(q.Given), q.Inverse, names(q.Answer), got, want, c.source)
				}
				compared++
			}
		}
		// Cases where the threshold matters: some relation's groups differ
		// between the ends of the grid.
		for _, r := range []string{"r0", "r1", "r2"} {
			lo, hi := c.groups(t, r, tuneThresholds[0]), c.groups(t, r, tuneThresholds[len(tuneThresholds)-1])
			if !slices.Equal(lo, hi) {
				split++
			}
		}
	}
	if compared < 200 || split < 5 {
		t.Errorf("%d ranks compared, %d relations grouped differently across the grid: the cases test little", compared, split)
	}
}

// TestChooseGrouped checks that ChooseAggregation chooses grouped where it
// ranks best by construction, per relation too, and that its directives
// survive the printer and the parser. In t, three rules predict a wrong
// candidate alike (0.6 each: noisy-or .936) and two rules whose
// predictions on the valid triples overlap by half (Jaccard 2/4, exact: a
// rule predicts fewer pairs than a sketch holds) give the answer 0.5 each:
// only grouping the three apart from the two, at a threshold above 1/2,
// ranks the answer first (.75 against .6). In u, the three alike give the
// answer and the two a wrong candidate: max ranks it first, grouped above
// 1/2 does not.
func TestChooseGrouped(t *testing.T) {
	ctx := context.Background()
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	fact := func(s, r, o string) { b.Graph = append(b.Graph, store.NamedTriple{S: s, R: r, O: o}) }
	for rel, n := range map[string]int{"t": 21, "u": 11} {
		for i := range n {
			q, a, w, x, y := rel+fmt.Sprint("q", i), rel+fmt.Sprint("a", i), rel+fmt.Sprint("w", i), rel+fmt.Sprint("x", i), rel+fmt.Sprint("y", i)
			b.Splits["valid"] = append(b.Splits["valid"], store.NamedTriple{S: q, R: rel, O: a})
			alike, two := w, a // t: the three alike are wrong
			if rel == "u" {
				alike, two = a, w
			}
			fact(q, "p"+rel, alike)
			fact(q, "b"+rel, two)
			fact(q, "b"+rel, x)
			fact(q, "c"+rel, two)
			fact(q, "c"+rel, y)
		}
	}
	st := store.NewMemory()
	if _, err := st.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, rel := range []string{"t", "u"} {
		fmt.Fprintf(&src, `0.6 :: %[1]s(X, Y) :- p%[1]s(X, Y).
0.6 :: %[1]s(X, Y) :- p%[1]s(X, Y), p%[1]s(X, _).
0.6 :: %[1]s(X, Y) :- p%[1]s(X, Y), p%[1]s(_, Y).
0.5 :: %[1]s(X, Y) :- b%[1]s(X, Y).
0.5 :: %[1]s(X, Y) :- c%[1]s(X, Y).
`, rel)
	}
	prog, err := parser.ParseString("rules.dl", src.String())
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ValidQueries(st)
	if err != nil {
		t.Fatal(err)
	}
	tu, err := ChooseAggregationSnapshot(ctx, st, nil, prog, qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.Directives) != 2 {
		t.Fatalf("directives %v: want one for every relation and one for u", tu.Directives)
	}
	def, u := tu.Directives[0], tu.Directives[1]
	if def.Method != "grouped" || def.Value("threshold") <= 0.5 || def.Value("prior") != 0 || def.Pred != "" {
		t.Errorf("chosen for every relation: %s; want grouped above threshold 1/2, no prior", def)
	}
	// The simplest of the equals: the lowest threshold above 1/2.
	if want := tuneThresholds[slices.IndexFunc(tuneThresholds, func(x float64) bool { return x > 0.5 })]; def.Value("threshold") != want {
		t.Errorf("threshold %g, want %g", def.Value("threshold"), want)
	}
	if u.Method != "max" || u.Pred != "u" {
		t.Errorf("chosen for u: %s; want max", u)
	}
	if tu.Chosen != 1 {
		t.Errorf("valid MRR of the choice %g, want 1", tu.Chosen)
	}
	// The directives as mine writes them, read back.
	back, err := parser.ParseString("back.dl", directivesText(tu))
	if err != nil {
		t.Fatalf("%v\n%s", err, directivesText(tu))
	}
	for i, a := range tu.Directives {
		got := back.Aggregates[i]
		if got.Method != a.Method || got.Pred != a.Pred || !slices.Equal(got.Params, a.Params) {
			t.Errorf("directive %d: %s read back as %s", i, a, got)
		}
	}
	if a := back.Aggregation("t"); a.Method != "grouped" || a.Value("threshold") != def.Value("threshold") {
		t.Errorf("t reads %s back", a)
	}
	checkRecordedGroups(t, st, prog, tu, def.Value("threshold"))
}

// checkRecordedGroups checks TestChooseGrouped's @groups directives: one,
// for t (u ranks by max), whose groups are, by construction, t's three
// rules alike (rules 1 to 3) and the two that overlap by half apart; and
// that ranking the valid queries with the directives and the groups
// written in the file gives the ranks of finding the groups again.
func checkRecordedGroups(t *testing.T, st store.Store, prog *datalog.Program, tu *Tuning, threshold float64) {
	t.Helper()
	ctx := context.Background()
	if len(tu.Groups) != 1 {
		t.Fatalf("recorded groups %v: want t's only", tu.Groups)
	}
	g := tu.Groups[0]
	var tRules []*datalog.Rule
	for i := range prog.Rules {
		if prog.Rules[i].Head.Pred == "t" {
			tRules = append(tRules, &prog.Rules[i])
		}
	}
	if g.Pred != "t" || g.Threshold != threshold || g.Rules != 5 || g.Sum != datalog.HeadSum(tRules) || fmt.Sprint(g.Groups) != "[[1 2 3]]" {
		t.Errorf("recorded %s; want t's 5 rules at %g, rules 1 2 3 together", g, threshold)
	}
	var file strings.Builder
	file.WriteString(directivesText(tu))
	for _, r := range prog.Rules {
		fmt.Fprintln(&file, r)
	}
	found, err := parser.ParseString("found.dl", file.String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(&file, g)
	recorded, err := parser.ParseString("recorded.dl", file.String())
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ValidQueries(st)
	if err != nil {
		t.Fatal(err)
	}
	a, err := EvaluateRules(ctx, st, found, AggOverride{}, qs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EvaluateRules(ctx, st, recorded, AggOverride{}, qs)
	if err != nil {
		t.Fatal(err)
	}
	if a.Expected.MRR != b.Expected.MRR || a.Expected.MRR != 1 {
		t.Errorf("valid MRR %g with the groups found, %g with them recorded; want 1 both", a.Expected.MRR, b.Expected.MRR)
	}
}

// directivesText is the @aggregate directives of tu, one per line.
func directivesText(tu *Tuning) string {
	var b strings.Builder
	for _, a := range tu.Directives {
		fmt.Fprintln(&b, a)
	}
	return b.String()
}
