package query

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// TestMinedQueryWork measures, on a store and a rule file written by
// drumql mine, what a goal-directed query derives with the plain
// magic-set rewrite and with the evaluation queryUnit chooses, and checks
// that both give the same answers. It runs only when DRUMQL_MINED_DB (a
// store), DRUMQL_MINED_RULES (the mined file) and DRUMQL_MINED_QUERY (the
// query) are set (bench/query-mined.sh sets them); it logs counts, never
// times. DRUMQL_MINED_MIN sets Options.Min (default 0.1, as query).
func TestMinedQueryWork(t *testing.T) {
	dir, rules, qs := os.Getenv("DRUMQL_MINED_DB"), os.Getenv("DRUMQL_MINED_RULES"), os.Getenv("DRUMQL_MINED_QUERY")
	if dir == "" || rules == "" || qs == "" {
		t.Skip("set DRUMQL_MINED_DB, DRUMQL_MINED_RULES and DRUMQL_MINED_QUERY (see bench/query-mined.sh)")
	}
	minConf := 0.1
	if s := os.Getenv("DRUMQL_MINED_MIN"); s != "" {
		if _, err := fmt.Sscan(s, &minConf); err != nil {
			t.Fatalf("DRUMQL_MINED_MIN: %v", err)
		}
	}
	st, err := store.Open(dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := parser.ParseFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	q := testkit.MustQuery(t, qs)
	syms, err := eval.NewSymtab(st)
	if err != nil {
		t.Fatal(err)
	}
	magic := goal.NewMagicBuilder(p, q).Rewrite(nil)
	chosen, mode := goal.QueryUnit(p, q, true)
	names := map[eval.QueryMode]string{eval.ModePlain: "plain", eval.ModeMagic: "magic sets", eval.ModeShared: "magic sets, shared all-free goals", eval.ModeBottomUp: "bottom-up (cost check)"}
	t.Logf("%s over %s: %d rules", q, rules, len(p.Rules))
	var answers [2]string
	for k, u := range []*eval.Unit{magic, chosen} {
		what := "magic-set rewrite"
		if k == 1 {
			what = "chosen: " + names[mode]
		}
		goals := map[string]int{}
		for pred := range u.Internal {
			parts := strings.Split(pred, "\x00")
			if len(parts) == 4 && parts[1] == "a" {
				goals[parts[3]]++
			}
		}
		var ads []string
		for ad, n := range goals {
			ads = append(ads, fmt.Sprintf("%d %s", n, ad))
		}
		slices.Sort(ads)
		e := eval.NewEvaluator(context.Background(), st, syms, eval.Options{Min: minConf})
		e.Stored = true
		e.Unit = u
		var rounds []string
		last := 0
		e.Progress = func(pr eval.Progress) {
			rounds = append(rounds, fmt.Sprint(pr.Facts-last))
			last = pr.Facts
		}
		if err := e.Load(u); err != nil {
			t.Fatal(err)
		}
		if err := e.Run(u); err != nil {
			t.Fatal(err)
		}
		var magicFacts, adornedFacts, largest int
		var largestName string
		for _, r := range e.Rels {
			parts := strings.Split(r.Name, "\x00")
			switch {
			case len(parts) == 4 && parts[1] == "m":
				magicFacts += r.Len()
				if r.Len() > largest {
					largest, largestName = r.Len(), "magic_"+parts[2]+"_"+parts[3]
				}
			case len(parts) == 4 && parts[1] == "a":
				adornedFacts += r.Len()
			}
		}
		t.Logf("%s: %d rules, adorned goals [%s]; %d facts derived (%d magic, %d in adorned relations) in %d rounds: %s",
			what, len(u.Prog.Rules), strings.Join(ads, ", "), e.Derived, magicFacts, adornedFacts, e.Iterations, strings.Join(rounds, " "))
		if largest > 0 {
			t.Logf("  the largest magic relation: %s, %d facts", largestName, largest)
		}
		ri, ok := e.RelIdx[eval.RelKey(u.Answer, len(eval.QueryVars(q)))]
		if !ok {
			continue
		}
		var as []eval.Answer
		if err := e.EachAnswer(e.Rels[ri], q, false, false, func(a eval.Answer) bool { as = append(as, a); return true }); err != nil {
			t.Fatal(err)
		}
		eval.SortAnswers(as)
		answers[k] = oracle.FormatAnswers(as)
	}
	if answers[0] != answers[1] {
		t.Errorf("answers differ:\nmagic-set rewrite:\n%schosen:\n%s", answers[0], answers[1])
	}
	t.Logf("answers:\n%s", answers[1])
}
