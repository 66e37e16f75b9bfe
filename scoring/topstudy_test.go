package scoring

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// BenchmarkTopStudy measures the candidate sets of mine --top 20 on a
// store and its whole mined file: the 20 rules per head by support ×
// weight (miner.TopRules), the covering set (TopByCoverage), and ranking
// sets chosen as TopByRank chooses, named in DRUMQL_STUDY_VARIANTS
// (comma-separated): "rank@K" under max and "rankn@K" under noisy-or,
// among the K first by support × weight (0: all), each filled in that
// order. Each set is ranked alone (its aggregation chosen on valid, as
// mine chooses it; valid and test MRR, expected ties), then merged per
// relation as mine --top merges them: by value and covering, as before
// the ranking set, and with each ranking set. The rules' support is read
// off the file's comments. Set DRUMQL_STUDY_DB (a store with valid and
// test splits) and DRUMQL_STUDY_RULES (its whole mined file), and run
// `go test ./scoring -run '^$' -bench TopStudy -benchtime 1x -v`.
func BenchmarkTopStudy(b *testing.B) {
	db, file := os.Getenv("DRUMQL_STUDY_DB"), os.Getenv("DRUMQL_STUDY_RULES")
	if db == "" || file == "" {
		b.Skip("set DRUMQL_STUDY_DB and DRUMQL_STUDY_RULES")
	}
	ctx := context.Background()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rules, err := studyRules(ctx, file)
	if err != nil {
		b.Fatal(err)
	}
	snap, err := st.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	const n = 20
	names := []string{"value", "cover"}
	for _, v := range strings.Split(os.Getenv("DRUMQL_STUDY_VARIANTS"), ",") {
		if v != "" {
			names = append(names, v)
		}
	}
	keeps, err := studySets(ctx, st, snap, rules, n, names[1:])
	if err != nil {
		b.Fatal(err)
	}
	sets := [][]miner.MinedRule{miner.TopRules(rules, n)}
	for _, k := range keeps {
		sets = append(sets, keepRules(rules, k))
	}
	vq, err := ValidQueries(st)
	if err != nil {
		b.Fatal(err)
	}
	tq, err := linkpred.Queries(st, "test")
	if err != nil {
		b.Fatal(err)
	}
	rank := func(name string, rs []miner.MinedRule) []linkpred.Rank {
		prog := &datalog.Program{Rules: miner.DatalogRules(rs)}
		tu, err := ChooseAggregationSnapshot(ctx, st, snap, prog, vq)
		if err != nil {
			b.Fatal(err)
		}
		prog.Aggregates, prog.RuleGroups = tu.Directives, tu.Groups
		rep, err := EvaluateRules(ctx, st, prog, AggOverride{}, tq)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%-22s %6d rules: valid MRR %.4f, test MRR %.4f", name, len(rs), tu.Chosen, rep.Expected.MRR)
		return tu.Ranks
	}
	var ranks [][]linkpred.Rank
	for k, s := range sets {
		ranks = append(ranks, rank(names[k], s))
	}
	merge := func(idx ...int) {
		var rk [][]linkpred.Rank
		var label []string
		for _, i := range idx {
			rk, label = append(rk, ranks[i]), append(label, names[i])
		}
		c := linkpred.Choose(vq, rk, TuneMinQueries)
		pick := map[string]int{}
		for _, q := range vq {
			name, err := st.Name(q.Rel)
			if err != nil {
				b.Fatal(err)
			}
			v, ok := c.PerRelation[q.Rel]
			if !ok {
				v = c.Default
			}
			pick[name] = v
		}
		lists := make([][]miner.MinedRule, len(idx))
		for k, i := range idx {
			for _, m := range sets[i] {
				v, ok := pick[m.Head]
				if !ok {
					v = c.Default
				}
				if v == k {
					lists[k] = append(lists[k], m)
				}
			}
		}
		rank(strings.Join(label, "+"), miner.MergeRules(lists...))
	}
	merge(0, 1)
	for i := 2; i < len(sets); i++ {
		merge(0, 1, i)
	}
}

// studyRules reads a mined file's rules with the support the comment
// line above each gives it ("support=N"), in the file's order
// (MergeRules').
func studyRules(ctx context.Context, file string) ([]miner.MinedRule, error) {
	prog, err := parser.ParseFileContext(ctx, file, parser.FileOptions{MaxFileSize: 1 << 30})
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	support := regexp.MustCompile(`^%.*\bsupport[=~](\d+)`)
	var rules []miner.MinedRule
	for _, r := range prog.Rules {
		var m []string
		if k := r.Pos.Line - 2; k >= 0 && k < len(lines) {
			m = support.FindStringSubmatch(lines[k])
		}
		if m == nil {
			return nil, fmt.Errorf("%s: rule without a support above it: %s", r.Pos, r.String())
		}
		sup, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, err
		}
		rules = append(rules, miner.MinedRule{Rule: r, Head: r.Head.Pred, Support: sup, Counted: true})
	}
	return rules, nil
}

// studySets returns, for each variant ("cover", "rank@K", "rankn@K"),
// which of rules its set of n per head keeps.
func studySets(ctx context.Context, st store.Store, snap *store.Snapshot, rules []miner.MinedRule, n int, variants []string) ([][]bool, error) {
	order := CoverOrder(rules)
	keeps := make([][]bool, len(variants))
	for k := range keeps {
		keeps[k] = make([]bool, len(rules))
	}
	var facts map[store.ID][]store.Triple
	var eng *reasoner.Engine
	for lo := 0; lo < len(rules); {
		hi := lo
		for hi < len(rules) && rules[hi].Head == rules[lo].Head {
			hi++
		}
		if hi-lo <= n {
			for k := range keeps {
				for i := lo; i < hi; i++ {
					keeps[k][i] = true
				}
			}
			lo = hi
			continue
		}
		if eng == nil {
			var err error
			if eng, facts, err = coverEngine(ctx, st, snap, rules); err != nil {
				return nil, err
			}
		}
		entries, err := rankEntries(ctx, st, eng, rules[lo].Head, facts, lo, hi)
		if err != nil {
			return nil, err
		}
		ord := order[lo:hi]
		for k, v := range variants {
			var got []int
			name, pool, _ := strings.Cut(v, "@")
			switch name {
			case "cover":
				got = chooseCover(truthHits(entries), ord, n)
			case "rank", "rankn":
				size, err := strconv.Atoi(pool)
				if err != nil || size < 0 {
					return nil, fmt.Errorf("variant %q: want rank@K or rankn@K, K >= 0", v)
				}
				if size == 0 || size > len(ord) {
					size = len(ord)
				}
				got = fillInOrder(chooseRankIn(entries, ord[:size], n, name == "rankn"), ord, n)
			default:
				return nil, fmt.Errorf("variant %q: want cover, rank@K or rankn@K", v)
			}
			for _, i := range got {
				keeps[k][lo+i] = true
			}
		}
		lo = hi
	}
	return keeps, nil
}
