package miner

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestFamilyWifeRule trains on the bundled family dataset (T=2, L=3) and
// checks that wife(A, B) :- husband(B, A) is among the top three rules for
// wife, as in Table 5 of the paper.
func TestFamilyWifeRule(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on family (about a minute)")
	}
	st := datasetStore(t, "../examples/family")
	start := time.Now()
	cfg := Config{MaxEpochs: familyEpochs}
	m, err := Train(context.Background(), st, cfg, func(p Progress) {
		if p.EpochDone {
			t.Logf("epoch %d: train loss %.4f, valid loss %.4f, valid raw hits@10 %.4f, %.0f queries/s (%v)",
				p.Epoch, p.Loss, p.ValidLoss, p.ValidHits10, p.QueriesPerSec, time.Since(start).Round(time.Millisecond))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := m.Rules(ExtractOptions{Heads: []string{"wife"}})
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for i, mr := range rules {
		r := mr.Datalog()
		t.Logf("%s", r.String())
		if i < 3 {
			top = append(top, strings.TrimSpace(r.String()[strings.LastIndex(r.String(), "\n")+1:]))
		}
	}
	want := "wife(A, B) :- husband(B, A)."
	found := false
	for _, s := range top {
		// Strip the weight prefix "w :: ".
		if i := strings.Index(s, ":: "); i >= 0 {
			s = s[i+3:]
		}
		if s == want {
			found = true
		}
	}
	if !found {
		t.Errorf("%q not among the top 3 rules for wife: %q", want, top)
	}
}

// familyEpochs is the number of epochs of the family test.
const familyEpochs = 10
