package wire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
)

func TestNewUpdate(t *testing.T) {
	ch := maintain.Change{Added: 2, Removed: 1, Facts: []maintain.ChangedFact{
		{Pred: "wife", Args: []string{"Alice", "bob"}, New: 0.9},
		{Pred: "wife", Args: []string{"carol", "dan"}, Old: 0.5},
		{Pred: "knows", Args: []string{"a", "b"}, New: 1},
	}}
	up := NewUpdate(ch, 1500*time.Microsecond, 2)
	b, err := json.Marshal(up)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"added":2,"removed":1,"reweighted":0,"recomputed":false,"facts":[{"fact":"wife(\"Alice\", bob)","old":0,"new":0.9},{"fact":"wife(carol, dan)","old":0.5,"new":0}],"ms":1.5}`
	if string(b) != want {
		t.Errorf("NewUpdate:\n got %s\nwant %s", b, want)
	}
	if up := NewUpdate(maintain.Change{}, 0, 10); up.Facts == nil {
		t.Error("an update without changed facts lists nil, want [] in JSON")
	}
}

func TestNewRule(t *testing.T) {
	r := datalog.Rule{Weight: 0.5, Head: datalog.Atom{Pred: "wife", Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}, {Kind: datalog.Var, Value: "Y"}}},
		Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: "husband", Args: []datalog.Term{{Kind: datalog.Var, Value: "Y"}, {Kind: datalog.Var, Value: "X"}}}}},
		Pos:  datalog.Pos{File: "rules.dl", Line: 3, Col: 1}}
	lines := []string{"% ---- wife ----", "% score=0.9 support=12 body=20 conf=0.6", "0.5 :: wife(X, Y) :- husband(Y, X)."}
	got := NewRule(r, lines)
	if got.Rule != "0.5 :: wife(X, Y) :- husband(Y, X)." || got.Head != "wife" || got.File != "rules.dl" || got.Line != 3 {
		t.Errorf("NewRule = %+v", got)
	}
	if got.Support == nil || *got.Support != 12 || got.Body == nil || *got.Body != 20 || got.Confidence == nil || *got.Confidence != 0.6 {
		t.Errorf("counts from the comment above: support %v body %v conf %v, want 12 20 0.6", got.Support, got.Body, got.Confidence)
	}
	r.Weight = 0
	if got := NewRule(r, nil); got.Weight != 1 || got.Support != nil {
		t.Errorf("a hard rule without its file: %+v, want weight 1 and no counts", got)
	}
}

func TestAnswersJSON(t *testing.T) {
	proof := &reasoner.Proof{Fact: "p(a)", Confidence: 1, Weight: 1, Base: true}
	as := []reasoner.Answer{{Values: []string{"a"}, Confidence: 1, Proof: proof}}
	for _, c := range []struct {
		vars    []string
		answers []reasoner.Answer
		explain bool
		want    string
	}{
		{[]string{"Y"}, as, false, `[{"Y":"a","confidence":1}]`},
		{[]string{"Y"}, as, true, `[{"Y":"a","confidence":1,"proof":{"fact":"p(a)","confidence":1,"weight":1,"base":true,"negated":false,"children":[]}}]`},
		{nil, as, false, `{"confidence":1,"holds":true}`},
		{nil, nil, true, `{"holds":false}`},
	} {
		b, err := json.Marshal(Answers(c.vars, c.answers, c.explain))
		if err != nil || string(b) != c.want {
			t.Errorf("Answers(%v, explain %v) = %s, %v; want %s", c.vars, c.explain, b, err, c.want)
		}
	}
}
