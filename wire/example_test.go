package wire_test

import (
	"encoding/json"
	"fmt"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/wire"
)

// The answers to wife(X, Y)? as drumql query --format json writes them: the
// query's variables in order, then the confidence.
func ExampleAnswers() {
	q := datalog.Atom{Pred: "wife", Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}, {Kind: datalog.Var, Value: "Y"}}}
	answers := []reasoner.Answer{{Values: []string{"alice", "bob"}, Confidence: 0.9}, {Values: []string{"dana", "carl"}, Confidence: 0.5}}
	b, err := json.Marshal(wire.Answers(wire.QueryVars(q), answers, false))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))
	// Output: [{"X":"alice","Y":"bob","confidence":0.9},{"X":"dana","Y":"carl","confidence":0.5}]
}

// A proof tree as drumql explain --format json writes it.
func ExampleNewProof() {
	p := &reasoner.Proof{Fact: "wife(alice, bob)", Confidence: 0.9, Rule: "0.9 :: wife(X, Y) :- husband(Y, X).", Weight: 0.9,
		Children: []*reasoner.Proof{{Fact: "husband(bob, alice)", Confidence: 1, Weight: 1, Base: true}}}
	b, err := json.Marshal(wire.NewProof(p))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))
	// Output: {"fact":"wife(alice, bob)","confidence":0.9,"rule":"0.9 :: wife(X, Y) :- husband(Y, X).","weight":0.9,"base":false,"negated":false,"children":[{"fact":"husband(bob, alice)","confidence":1,"weight":1,"base":true,"negated":false,"children":[]}]}
}
