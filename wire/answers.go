package wire

import (
	"bytes"
	"encoding/json"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
)

// QueryVars returns the distinct named variables of a, in order of first
// appearance: the keys of an answer object.
func QueryVars(a datalog.Atom) []string {
	var vs []string
	seen := make(map[string]bool, len(a.Args)) // linear in the arguments
	for _, t := range a.Args {
		if t.Kind == datalog.Var && t.Value != "_" && !seen[t.Value] {
			seen[t.Value] = true
			vs = append(vs, t.Value)
		}
	}
	return vs
}

// Proof is a proof tree as JSON (`drumql explain --format json`, POST
// /v1/explain): snake_case keys, children always an array.
type Proof struct {
	Fact       string  `json:"fact"`
	Confidence Conf    `json:"confidence"`
	Rule       string  `json:"rule,omitempty"`
	File       string  `json:"file,omitempty"`
	Line       int     `json:"line,omitempty"`
	Col        int     `json:"col,omitempty"`
	Weight     float64 `json:"weight"`
	Base       bool    `json:"base"`
	Negated    bool    `json:"negated"`
	Aggregate  bool    `json:"aggregate,omitempty"`
	Children   []Proof `json:"children"`
}

// NewProof converts a proof tree.
func NewProof(p *reasoner.Proof) Proof {
	j := Proof{Fact: p.Fact, Confidence: Conf(p.Confidence), Rule: p.Rule, File: p.Pos.File, Line: p.Pos.Line, Col: p.Pos.Col,
		Weight: p.Weight, Base: p.Base, Negated: p.Negated, Aggregate: p.Aggregate, Children: make([]Proof, 0, len(p.Children))}
	for _, c := range p.Children {
		j.Children = append(j.Children, NewProof(c))
	}
	return j
}

// Answer is an answer as a JSON object (`drumql query --format json`, POST
// /v1/query): the variables in order, then "confidence", then "proof" when
// there is one.
type Answer struct {
	Vars       []string
	Values     []string
	Confidence float64
	Proof      *Proof
}

// MarshalJSON writes the answer's keys in order: the variables, confidence,
// proof.
func (r Answer) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range r.Vars {
		k, _ := json.Marshal(v)
		x, _ := json.Marshal(r.Values[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(x)
		b.WriteByte(',')
	}
	b.WriteString(`"confidence":`)
	b.WriteString(ConfText(r.Confidence))
	if r.Proof != nil {
		x, err := json.Marshal(r.Proof)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"proof":`)
		b.Write(x)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// NewAnswer is the object of answer a to a query with variables vars, with
// its proof when explain is set and it has one.
func NewAnswer(vars []string, a reasoner.Answer, explain bool) Answer {
	r := Answer{Vars: vars, Values: a.Values, Confidence: a.Confidence}
	if explain && a.Proof != nil {
		p := NewProof(a.Proof)
		r.Proof = &p
	}
	return r
}

// Answers is the JSON value of the answers to a query with variables vars
// (`drumql query --format json`, POST /v1/query): for a ground query (no variables) an
// object {"holds", "confidence"} (and "proof" with explain), otherwise an
// array of Answer.
func Answers(vars []string, answers []reasoner.Answer, explain bool) any {
	if len(vars) == 0 {
		return GroundAnswer(answers, explain)
	}
	rows := make([]Answer, len(answers))
	for i, a := range answers {
		rows[i] = NewAnswer(vars, a, explain)
	}
	return rows
}

// GroundAnswer is the JSON object of the answer to a ground query:
// {"holds": bool, "confidence": c, "proof": ...}.
func GroundAnswer(answers []reasoner.Answer, explain bool) map[string]any {
	v := map[string]any{"holds": len(answers) > 0}
	if len(answers) > 0 {
		v["confidence"] = Conf(answers[0].Confidence)
		if explain && answers[0].Proof != nil {
			v["proof"] = NewProof(answers[0].Proof)
		}
	}
	return v
}
