package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/wire"
)

// queryVars returns the distinct named variables of a (wire.QueryVars).
func queryVars(a datalog.Atom) []string { return wire.QueryVars(a) }

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

// printAnswersJSON writes the answers as JSON (wire.Answers): for a
// ground query an object {"holds", "confidence"}, otherwise an array of
// rows; with explain, every answer carries "proof".
func printAnswersJSON(w io.Writer, vars []string, answers []reasoner.Answer, explain bool) error {
	return writeJSON(w, wire.Answers(vars, answers, explain))
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
	case p.Aggregate:
		b.WriteString("  aggregate\n")
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
