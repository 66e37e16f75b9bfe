package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/internal/tsv"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
)

// The text forms of answers, proofs and changes: what `drumql query`,
// `explain` and `infer` print for a person (a table, or TSV for a
// program), beside the JSON objects of the rest of the package.

// FormatConfidence formats a confidence for people: 4 significant digits.
func FormatConfidence(c float64) string {
	return strconv.FormatFloat(c, 'g', 4, 64)
}

// WriteAnswers writes the answers to a query with variables vars as a
// table or, with format "tsv", as TSV, through a buffer, checking ctx every
// few thousand rows: printing millions of answers takes seconds, and a
// cancelled ctx stops it (with ctx's error). A ground query (no variables)
// is written "true <confidence>" or "false"; no answer to another is "no
// answers" in a table, the header alone in TSV. Table columns are padded to
// the widest value, counting runes (as fmt's %-*s does); TSV writes the
// confidence in full.
func WriteAnswers(ctx context.Context, w io.Writer, format string, vars []string, answers []reasoner.Answer) error {
	if len(vars) == 0 { // a ground query
		if len(answers) == 0 {
			_, err := fmt.Fprintln(w, "false")
			return err
		}
		_, err := fmt.Fprintf(w, "true %s\n", FormatConfidence(answers[0].Confidence))
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
				bw.WriteString(tsv.Escape(v))
				bw.WriteByte('\t')
			}
			bw.Write(strconv.AppendFloat(bw.AvailableBuffer(), a.Confidence, 'g', -1, 64))
			bw.WriteByte('\n')
		}
	} else {
		widths := make([]int, len(vars))
		for i, v := range vars {
			widths[i] = len(v)
			for _, a := range answers {
				widths[i] = max(widths[i], len(tsv.Escape(a.Values[i])))
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
				cell(i, tsv.Escape(v))
			}
			bw.WriteString(FormatConfidence(a.Confidence))
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

// AnswerStream writes answers one by one as they come (format "table",
// "tsv" or "json", as [WriteAnswers] and [Answers] write them), through a
// buffer, holding none of them: table columns are not aligned, and a
// ground query's one answer is "true <confidence>". Its writes stop at the
// first error, which [AnswerStream.Write] reports by returning false.
type AnswerStream struct {
	out    *errWriter
	w      *bufio.Writer
	format string
	vars   []string
	n      int
	err    error // of encoding an answer
}

// NewAnswerStream starts a stream of the answers to a query with variables
// vars on w, writing the header of format.
func NewAnswerStream(w io.Writer, format string, vars []string) *AnswerStream {
	out := &errWriter{w: w}
	s := &AnswerStream{out: out, w: bufio.NewWriter(out), format: format, vars: vars}
	switch {
	case format == "json":
		s.w.WriteString("[\n  ")
	case format == "tsv":
		s.w.WriteString(strings.Join(vars, "\t") + "\tconfidence\n")
	case len(vars) > 0:
		s.w.WriteString(strings.Join(vars, "  ") + "  confidence\n")
	}
	return s
}

// Write writes one answer; it returns false once a write or an encoding
// has failed (a closed pipe), so that the caller stops the query instead of
// formatting the rest for nothing.
func (s *AnswerStream) Write(a reasoner.Answer) bool {
	w := s.w
	switch s.format {
	case "json":
		x, err := json.Marshal(Answer{Vars: s.vars, Values: a.Values, Confidence: a.Confidence})
		if err != nil {
			s.err = err
			return false
		}
		if s.n > 0 {
			w.WriteString(",\n  ")
		}
		w.Write(x)
	case "tsv": // written piece by piece: nothing allocated per row
		for _, v := range a.Values {
			w.WriteString(tsv.Escape(v))
			w.WriteByte('\t')
		}
		w.Write(strconv.AppendFloat(w.AvailableBuffer(), a.Confidence, 'g', -1, 64))
		w.WriteByte('\n')
	default:
		if len(s.vars) == 0 {
			w.WriteString("true ")
		}
		for _, v := range a.Values {
			w.WriteString(tsv.Escape(v))
			w.WriteString("  ")
		}
		w.Write(strconv.AppendFloat(w.AvailableBuffer(), a.Confidence, 'g', 4, 64)) // FormatConfidence
		w.WriteByte('\n')
	}
	s.n++
	return s.out.err == nil
}

// Count is the number of answers written.
func (s *AnswerStream) Count() int { return s.n }

// Flush writes what the buffer holds, without the footer: after a query
// that failed.
func (s *AnswerStream) Flush() error { return s.w.Flush() }

// Close writes the footer ("false" or "no answers" in a table without
// answers, the end of the JSON array) and flushes the buffer; it returns the
// first error of the stream.
func (s *AnswerStream) Close() error {
	switch {
	case s.format == "json":
		s.w.WriteString("\n]\n")
	case s.format != "tsv" && s.n == 0:
		if len(s.vars) == 0 {
			s.w.WriteString("false\n")
		} else {
			s.w.WriteString("no answers\n")
		}
	}
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// errWriter is a writer that keeps the first error of the writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	w.err = err
	return n, err
}

// WriteProof draws a proof tree with indentation: each fact with its
// confidence, the rule that derived it (file:line) and its body facts
// below it, down to base facts.
func WriteProof(w io.Writer, p *reasoner.Proof) error {
	var b strings.Builder
	proofLines(&b, p, "", "")
	_, err := io.WriteString(w, b.String())
	return err
}

func proofLines(b *strings.Builder, p *reasoner.Proof, first, rest string) {
	fmt.Fprintf(b, "%s%s  [%s]", first, p.Fact, FormatConfidence(p.Confidence))
	switch {
	case p.Base:
		b.WriteString("  base fact\n")
		return
	case p.Aggregate:
		b.WriteString("  aggregate\n")
		return
	case p.Negated && len(p.Children) == 1:
		fmt.Fprintf(b, "  = 1 - %s\n", FormatConfidence(p.Children[0].Confidence))
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

// ChangeCounts is "+N −M ~K": the derived facts ch added, removed and
// re-weighted.
func ChangeCounts(ch maintain.Change) string {
	return fmt.Sprintf("+%d −%d ~%d", ch.Added, ch.Removed, ch.Reweighted)
}

// WriteChanges lists up to n of the facts ch changed, one a line: "+ fact
// conf" (added), "− fact  conf" (removed), "~ fact  old → new"
// (re-weighted), then "... and N more" when some were not listed.
func WriteChanges(w io.Writer, ch maintain.Change, n int) error {
	bw := bufio.NewWriter(w)
	for i, f := range ch.Facts {
		if i == n {
			if more := ch.Added + ch.Removed + ch.Reweighted - n; more > 0 {
				fmt.Fprintf(bw, "  ... and %d more\n", more)
			}
			break
		}
		atom := factText(f.Pred, f.Args)
		switch {
		case f.Old == 0:
			fmt.Fprintf(bw, "  + %s  %s\n", atom, FormatConfidence(f.New))
		case f.New == 0:
			fmt.Fprintf(bw, "  − %s  %s\n", atom, FormatConfidence(f.Old))
		default:
			fmt.Fprintf(bw, "  ~ %s  %s → %s\n", atom, FormatConfidence(f.Old), FormatConfidence(f.New))
		}
	}
	return bw.Flush()
}

// UpdateSummary says what an update of the stored derived facts did, in
// took: "+N −M ~K derived facts in 12 ms (incremental, 3 rounds)", or
// "(recomputed, cheaper than an update)" when ch was a recomputation, or
// "(nothing to update)" when it changed nothing (changed false).
func UpdateSummary(ch maintain.Change, changed bool, took time.Duration) string {
	how := fmt.Sprintf("incremental, %d rounds", ch.Rounds)
	if ch.Full {
		how = "recomputed, cheaper than an update"
	}
	if !changed {
		how = "nothing to update"
	}
	return fmt.Sprintf("%s derived facts in %s (%s)", ChangeCounts(ch), FormatDuration(took), how)
}

// FormatDuration rounds d for a person: whole milliseconds below 10 s
// ("850 ms"), tenths of a second above ("12.3s").
func FormatDuration(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return d.Round(100 * time.Millisecond).String()
}

// WriteDerived writes the facts an infer derived per relation (derived, by
// relation name), one relation a line in name order, names written as a
// program would and aligned: "  wife        42".
func WriteDerived(w io.Writer, derived map[string]int) error {
	names := slices.Sorted(maps.Keys(derived))
	width := 0
	for _, n := range names {
		width = max(width, len(datalog.QuoteName(n)))
	}
	bw := bufio.NewWriter(w)
	for _, n := range names {
		fmt.Fprintf(bw, "  %-*s %9d\n", width, datalog.QuoteName(n), derived[n])
	}
	return bw.Flush()
}

// ProgressText is a progress bar's description of an infer's progress p:
// "round 3, 1200 facts derived, 40 MB in use, 2s" while deriving, "storing
// 800/1200 facts, 3s" while writing the result.
func ProgressText(p reasoner.Progress) string {
	el := p.Elapsed.Round(time.Second)
	if p.Phase == reasoner.PhaseWrite {
		return fmt.Sprintf("storing %d/%d facts, %s", p.Written, p.Total, el)
	}
	return fmt.Sprintf("round %d, %d facts derived, %s in use, %s", p.Rounds, p.Facts, sysmem.Format(p.Memory), el)
}

// TraceLine is `drumql infer --trace`'s line on the progress p of the
// derivation: the round, facts derived, joins, memory in use, elapsed time
// and, once batches ran in parallel, their wall time and the cores they
// kept busy ("batches 1.9s at 1.87 cores").
func TraceLine(p reasoner.Progress) string {
	s := fmt.Sprintf("trace: round %d, %d facts derived, %d joins, %s in use, %s",
		p.Rounds, p.Facts, p.Joins, sysmem.Format(p.Memory), p.Elapsed.Round(time.Millisecond))
	if p.Batches > 0 {
		s += fmt.Sprintf(", batches %s at %.2f cores", p.Batches.Round(time.Millisecond), p.Busy.Seconds()/p.Batches.Seconds())
	}
	return s
}

// CatchupTimes says how long the phases of an update of the stored derived
// facts took, the last ending at now: "read the stored derived facts in
// 12 ms, updated in 3 ms, stored in 5 ms", and the image's write when it
// took time after the store's (", image written in 40 ms").
func CatchupTimes(res maintain.CatchupResult, now time.Time) string {
	read := "the stored derived facts"
	if res.Stored.IsZero() {
		res.Stored = now
	}
	if res.FromImage {
		read = "the materialisation image"
	}
	s := fmt.Sprintf("read %s in %s, updated in %s, stored in %s", read,
		FormatDuration(res.Resumed.Sub(res.Start)), FormatDuration(res.Applied.Sub(res.Resumed)), FormatDuration(res.Stored.Sub(res.Applied)))
	if d := now.Sub(res.Stored); d >= time.Millisecond {
		s += ", image written in " + FormatDuration(d)
	}
	return s
}

// PrintAnswers prints the answers of a query as drumql query does: with
// format json the value of Answers, indented; otherwise WriteAnswers'
// table or tsv and, with explain, the proof of the top answer.
func PrintAnswers(ctx context.Context, w io.Writer, format string, vars []string, answers []reasoner.Answer, explain bool) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(Answers(vars, answers, explain))
	}
	if err := WriteAnswers(ctx, w, format, vars, answers); err != nil {
		return err
	}
	if explain && len(answers) > 0 && answers[0].Proof != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "proof of the top answer:")
		WriteProof(w, answers[0].Proof)
	}
	return nil
}
