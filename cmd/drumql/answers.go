package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
)

func queryVars(a datalog.Atom) []string {
	var vs []string
	for _, t := range a.Args {
		if t.Kind == datalog.Var && t.Value != "_" && !slices.Contains(vs, t.Value) {
			vs = append(vs, t.Value)
		}
	}
	return vs
}

// fmtConf formats a confidence for people: 4 significant digits.
func fmtConf(c float64) string {
	return strconv.FormatFloat(c, 'g', 4, 64)
}

// printAnswers writes the answers as a table or as TSV (format "tsv"),
// through a buffer, checking ctx every few thousand rows: printing
// millions of answers takes seconds, and Ctrl-C stops it (with ctx's
// error).
func printAnswers(ctx context.Context, w io.Writer, format string, vars []string, answers []reasoner.Answer) error {
	if len(vars) == 0 { // a ground query
		if len(answers) == 0 {
			_, err := fmt.Fprintln(w, "false")
			return err
		}
		_, err := fmt.Fprintf(w, "true %s\n", fmtConf(answers[0].Confidence))
		return err
	}
	if format != "tsv" && len(answers) == 0 {
		_, err := fmt.Fprintln(w, "no answers")
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var row func(a *reasoner.Answer)
	if format == "tsv" {
		bw.WriteString(strings.Join(vars, "\t") + "\tconfidence\n")
		row = func(a *reasoner.Answer) {
			for _, v := range a.Values {
				bw.WriteString(v)
				bw.WriteByte('\t')
			}
			bw.Write(strconv.AppendFloat(bw.AvailableBuffer(), a.Confidence, 'g', -1, 64))
			bw.WriteByte('\n')
		}
	} else {
		// Columns padded to the widest value in bytes, counting runes
		// as the padding (as fmt's %-*s does).
		widths := make([]int, len(vars))
		for i, v := range vars {
			widths[i] = len(v)
			for _, a := range answers {
				widths[i] = max(widths[i], len(a.Values[i]))
			}
		}
		cell := func(i int, v string) {
			bw.WriteString(v)
			for range widths[i] - utf8.RuneCountInString(v) + 2 {
				bw.WriteByte(' ')
			}
		}
		for i, v := range vars {
			cell(i, v)
		}
		bw.WriteString("confidence\n")
		row = func(a *reasoner.Answer) {
			for i, v := range a.Values {
				cell(i, v)
			}
			bw.WriteString(fmtConf(a.Confidence))
			bw.WriteByte('\n')
		}
	}
	for i := range answers {
		if i%(1<<14) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row(&answers[i])
	}
	return bw.Flush()
}

// printAnswersJSON writes the answers as JSON: for a ground query an object
// {"holds", "confidence"}, otherwise an array of rows (see jsonRow); with
// explain, every answer carries "proof" (see jsonProof).
func printAnswersJSON(w io.Writer, vars []string, answers []reasoner.Answer, explain bool) error {
	if len(vars) == 0 {
		v := map[string]any{"holds": len(answers) > 0}
		if len(answers) > 0 {
			v["confidence"] = answers[0].Confidence
			if explain && answers[0].Proof != nil {
				v["proof"] = newJSONProof(answers[0].Proof)
			}
		}
		return writeJSON(w, v)
	}
	rows := make([]jsonRow, len(answers))
	for i, a := range answers {
		rows[i] = jsonRow{vars: vars, vals: a.Values, conf: a.Confidence}
		if explain && a.Proof != nil {
			p := newJSONProof(a.Proof)
			rows[i].proof = &p
		}
	}
	return writeJSON(w, rows)
}

// jsonProof is a proof as JSON: snake_case keys, children always an array.
type jsonProof struct {
	Fact       string      `json:"fact"`
	Confidence float64     `json:"confidence"`
	Rule       string      `json:"rule,omitempty"`
	File       string      `json:"file,omitempty"`
	Line       int         `json:"line,omitempty"`
	Col        int         `json:"col,omitempty"`
	Weight     float64     `json:"weight"`
	Base       bool        `json:"base"`
	Negated    bool        `json:"negated"`
	Children   []jsonProof `json:"children"`
}

func newJSONProof(p *reasoner.Proof) jsonProof {
	j := jsonProof{Fact: p.Fact, Confidence: p.Confidence, Rule: p.Rule, File: p.Pos.File, Line: p.Pos.Line, Col: p.Pos.Col,
		Weight: p.Weight, Base: p.Base, Negated: p.Negated, Children: make([]jsonProof, 0, len(p.Children))}
	for _, c := range p.Children {
		j.Children = append(j.Children, newJSONProof(c))
	}
	return j
}

// jsonRow is an answer as a JSON object: the variables in order, then
// "confidence", then "proof" when there is one.
type jsonRow struct {
	vars  []string
	vals  []string
	conf  float64
	proof *jsonProof
}

func (r jsonRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range r.vars {
		k, _ := json.Marshal(v)
		x, _ := json.Marshal(r.vals[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(x)
		b.WriteByte(',')
	}
	b.WriteString(`"confidence":`)
	b.WriteString(strconv.FormatFloat(r.conf, 'g', -1, 64))
	if r.proof != nil {
		x, err := json.Marshal(r.proof)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"proof":`)
		b.Write(x)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printProof draws a proof tree with indentation.
func printProof(w io.Writer, p *reasoner.Proof) {
	var b strings.Builder
	proofLines(&b, p, "", "")
	io.WriteString(w, b.String())
}

func proofLines(b *strings.Builder, p *reasoner.Proof, first, rest string) {
	fmt.Fprintf(b, "%s%s  [%s]", first, p.Fact, fmtConf(p.Confidence))
	switch {
	case p.Base:
		b.WriteString("  base fact\n")
		return
	case p.Negated && len(p.Children) == 1:
		fmt.Fprintf(b, "  = 1 - %s\n", fmtConf(p.Children[0].Confidence))
		proofLines(b, p.Children[0], rest+"  └─ ", rest+"     ")
		return
	case p.Rule == "":
		b.WriteString("\n")
		return
	}
	where := ""
	if p.Pos.File != "" {
		where = fmt.Sprintf("  (%s:%d)", p.Pos.File, p.Pos.Line)
	}
	fmt.Fprintf(b, "\n%s  by %s%s\n", rest, p.Rule, where)
	for i, c := range p.Children {
		if i == len(p.Children)-1 {
			proofLines(b, c, rest+"  └─ ", rest+"     ")
		} else {
			proofLines(b, c, rest+"  ├─ ", rest+"  │  ")
		}
	}
}
