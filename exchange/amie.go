package exchange

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// The AMIE columns read, by their normalised names (lower case, without
// spaces and dots): versions of AMIE 3 name some differently.
const (
	amieRule    = "rule"
	amieHC      = "headcoverage"
	amieStd     = "stdconfidence"
	amiePCA     = "pcaconfidence"
	amieSupport = "positiveexamples"
	amieBody    = "bodysize"
	amiePCABody = "pcabodysize"
)

// amieAliases maps other spellings of a column to the one read.
var amieAliases = map[string]string{
	"standardconfidence": amieStd,
	"support":            amieSupport,
}

// amieColumnNames are the columns as AMIE's classic header spells them,
// for messages.
var amieColumnNames = map[string]string{
	amieRule: "Rule", amieHC: "Head Coverage", amieStd: "Std Confidence", amiePCA: "PCA Confidence",
	amieSupport: "Positive Examples", amieBody: "Body size", amiePCABody: "PCA Body size",
}

func normColumn(s string) string {
	s = strings.NewReplacer(" ", "", ".", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	if a, ok := amieAliases[s]; ok {
		return a
	}
	return s
}

// ReadAMIE reads AMIE 3's TSV output (see the package documentation): the
// lines before the header line (`Rule<TAB>Head Coverage<TAB>...`) are
// AMIE's log and are skipped, and so are the lines after it that have
// neither a tab nor "=>" (AMIE's closing log lines). A rule's weight is
// Positive Examples/(PCA Body size + smoothing) by default, Body size with
// opt.Std, or the PCA (Std) Confidence column as written with opt.Column.
// AMIE's variables ?a, ?b, ... become A, B, ...; its inequality atoms
// (`?a!=?b`) become comparisons; no others are added (AMIE does not read
// rules under object identity). Both of AMIE's rule syntaxes are read: the
// default (`?a  r  ?b   => ?a  h  ?b`) and the Datalog-like one (`r(?a,?b)
// => h(?a,?b)`).
func ReadAMIE(file string, r io.Reader, opt ReadOptions) (*Result, error) {
	ar := &amieReader{c: newCollector(file), file: file, opt: opt, s: smoothing(opt.Smoothing),
		confCol: amiePCA, bodyCol: amiePCABody, mode: "PCA"}
	if opt.Std {
		ar.confCol, ar.bodyCol, ar.mode = amieStd, amieBody, "std"
	}
	err := eachLine(r, func(n int, line string) error {
		if ar.cols == nil {
			return ar.header(n, line)
		}
		return ar.line(n, line)
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if ar.cols == nil && ar.c.errs.err() == nil {
		ar.c.errorf(1, 0, "no header line found (Rule<TAB>Head Coverage<TAB>Std Confidence<TAB>PCA Confidence<TAB>...): is this AMIE's output?")
	}
	return ar.c.finish()
}

// amieReader is ReadAMIE's state: the options, the columns the header
// named, and the rules collected.
type amieReader struct {
	c                      *collector
	file                   string
	opt                    ReadOptions
	s                      int // the smoothing of weights
	confCol, bodyCol, mode string
	cols                   map[string]int // column name -> index; nil before the header
	width                  int            // the columns a rule line needs
}

// header reads the header line (skipping AMIE's log before it) and checks
// that it has the columns the weights need.
func (ar *amieReader) header(n int, line string) error {
	first, _, _ := strings.Cut(line, "\t")
	if normColumn(first) != amieRule {
		return nil // AMIE's log before the header
	}
	ar.cols = map[string]int{}
	for i, name := range strings.Split(line, "\t") {
		if _, dup := ar.cols[normColumn(name)]; !dup {
			ar.cols[normColumn(name)] = i
		}
	}
	need := []string{amieRule, amieSupport, ar.bodyCol}
	if ar.opt.Column {
		need = []string{amieRule, ar.confCol}
	}
	for _, k := range need {
		i, ok := ar.cols[k]
		if !ok {
			ar.c.errorf(n, 0, fmt.Sprintf("the header has no column %q (AMIE's columns: %s)", amieColumnNames[k], line))
			return errStop
		}
		ar.width = max(ar.width, i+1)
	}
	return nil
}

// amieCells is one rule line cut at its tabs, with the 1-based column of
// each cell.
type amieCells struct {
	n     int // the line
	cells []string
	offs  []int
}

// line reads one line after the header: a rule with its measures, or
// AMIE's log after the rules.
func (ar *amieReader) line(n int, line string) error {
	if strings.TrimSpace(line) == "" {
		return nil
	}
	if !strings.Contains(line, "\t") {
		if strings.Contains(line, "=>") {
			ar.c.errorf(n, 0, "expected the rule and its measures separated by tabs, as the header says")
		}
		return nil // AMIE's log after the rules
	}
	ar.c.res.Report.Lines++
	lc := amieCells{n: n, cells: strings.Split(line, "\t")}
	if len(lc.cells) < ar.width {
		ar.c.errorf(n, 0, fmt.Sprintf("expected at least %d tab-separated columns, as the header says, found %d", ar.width, len(lc.cells)))
		return nil
	}
	lc.offs = make([]int, len(lc.cells))
	for i, o := 0, 1; i < len(lc.cells); i++ {
		lc.offs[i] = o
		o += len(lc.cells[i]) + 1
	}
	rl, ok := ar.rule(&lc)
	if !ok || !ar.weigh(&lc, &rl) {
		return nil
	}
	rl.Comment = amieComment(ar.mode, func(k string) (float64, bool) { return amieValue(lc.cells, ar.cols, k) })
	ar.c.add(rl)
	return nil
}

// rule parses the line's rule and checks that it is safe.
func (ar *amieReader) rule(lc *amieCells) (datalog.Rule, bool) {
	ri := ar.cols[amieRule]
	head, body, cmps, lerr := parseAMIERule(lc.cells[ri], lc.offs[ri])
	if lerr != nil {
		ar.c.errorf(lc.n, lerr.Col, lerr.Msg)
		return datalog.Rule{}, false
	}
	rl := datalog.Rule{Head: head, Pos: datalog.Pos{File: ar.file, Line: lc.n, Col: lc.offs[ri]}}
	for _, a := range body {
		rl.Body = append(rl.Body, atomLit(a))
	}
	rl.Body = append(rl.Body, cmps...)
	if v, where, ok := checkSafe(&rl); !ok {
		what := "the head variable %s does not occur in the body"
		if where != "head" {
			what = "the variable %s of an inequality does not occur in a body atom"
		}
		ar.c.errorf(lc.n, lc.offs[ri], fmt.Sprintf(what, strings.ToLower("?"+v)))
		return datalog.Rule{}, false
	}
	return rl, true
}

// measure reads column k of the line as a number of at least 0.
func (ar *amieReader) measure(lc *amieCells, k string) (float64, bool) {
	v, ok := amieValue(lc.cells, ar.cols, k)
	if !ok {
		i := ar.cols[k]
		ar.c.errorf(lc.n, lc.offs[i], fmt.Sprintf("%s %q is not a number of at least 0", amieColumnNames[k], lc.cells[i]))
	}
	return v, ok
}

// count reads column k of the line as a whole number of at least 0.
func (ar *amieReader) count(lc *amieCells, k string) (float64, bool) {
	v, ok := ar.measure(lc, k)
	if ok && v != math.Trunc(v) {
		ar.c.errorf(lc.n, lc.offs[ar.cols[k]], fmt.Sprintf("%s %q is not a whole number", amieColumnNames[k], lc.cells[ar.cols[k]]))
		return 0, false
	}
	return v, ok
}

// weigh sets the rule's weight: the confidence column as written, or the
// support over the body size, smoothed.
func (ar *amieReader) weigh(lc *amieCells, rl *datalog.Rule) bool {
	if ar.opt.Column {
		conf, ok := ar.measure(lc, ar.confCol)
		if !ok {
			return false
		}
		if conf > 1 {
			ar.c.errorf(lc.n, lc.offs[ar.cols[ar.confCol]], fmt.Sprintf("%s %q is more than 1", amieColumnNames[ar.confCol], lc.cells[ar.cols[ar.confCol]]))
			return false
		}
		rl.Weight = conf
		return true
	}
	sup, okS := ar.count(lc, amieSupport)
	bsize, okB := ar.count(lc, ar.bodyCol)
	if !okS || !okB {
		return false
	}
	if sup > bsize {
		ar.c.errorf(lc.n, lc.offs[ar.cols[amieSupport]], fmt.Sprintf("%s %s is more than %s %s",
			amieColumnNames[amieSupport], lc.cells[ar.cols[amieSupport]], amieColumnNames[ar.bodyCol], lc.cells[ar.cols[ar.bodyCol]]))
		return false
	}
	rl.Weight = smoothed(sup, bsize, ar.s)
	return true
}

// errStop ends a read at an error already recorded.
var errStop = errors.New("stop")

// amieValue returns the number in column k of a rule line, and false
// when there is none or it is not a number of at least 0.
func amieValue(cells []string, cols map[string]int, k string) (float64, bool) {
	i, ok := cols[k]
	if !ok || i >= len(cells) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(cells[i]), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// amieComment is the comment of a rule read from AMIE: the counts its
// weight uses as drumql mine writes them (support=N body=M), the
// confidence they are of, and AMIE's other measures.
func amieComment(mode string, value func(string) (float64, bool)) string {
	var b strings.Builder
	b.WriteString("from amie")
	conf, body, other, otherBody := amiePCA, amiePCABody, amieStd, amieBody
	if mode == "std" {
		conf, body, other, otherBody = amieStd, amieBody, amiePCA, amiePCABody
	}
	item := func(name, k string, f func(float64) string) {
		if v, ok := value(k); ok {
			fmt.Fprintf(&b, " %s=%s", name, f(v))
		}
	}
	whole := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	item("support", amieSupport, whole)
	item("body", body, whole)
	item("conf", conf, func(v float64) string { return fmtG(v) + " (" + mode + ")" })
	names := map[string]string{amieStd: "std", amiePCA: "pca", amieBody: "stdbody", amiePCABody: "pcabody"}
	item(names[other], other, fmtG)
	item(names[otherBody], otherBody, whole)
	item("hc", amieHC, fmtG)
	return b.String()
}

// parseAMIERule parses AMIE's rule column: body atoms, " => ", the head
// atom (col is the column's 1-based position in the line).
func parseAMIERule(rule string, col int) (head datalog.Atom, body []datalog.Atom, cmps []datalog.Literal, err *colError) {
	i := strings.Index(rule, "=>")
	if i < 0 || strings.Contains(rule[i+2:], "=>") {
		return head, nil, nil, &colError{col, `expected one "=>" between the body and the head`}
	}
	hf, bf := fields(rule[i+2:], col+i+2-1), fields(rule[:i], col-1)
	datalogLike := len(hf) == 1 && strings.Contains(hf[0].text, "(")
	var heads []datalog.Atom
	switch {
	case datalogLike:
		heads, _, err = amieAtoms(hf, true)
	case len(hf) == 3:
		heads, _, err = amieAtoms(hf, false)
	default:
		at := col + i + 2
		if len(hf) > 0 {
			at = hf[0].off + 1
		}
		return head, nil, nil, &colError{at, "expected one head atom after \"=>\": subject relation object"}
	}
	if err != nil {
		return
	}
	if len(heads) != 1 {
		return head, nil, nil, &colError{col + i + 2, "expected one head atom after \"=>\""}
	}
	body, cmps, err = amieAtoms(bf, datalogLike)
	if err == nil && len(body) == 0 {
		err = &colError{col, "the rule has no body atom"}
	}
	return heads[0], body, cmps, err
}

// amieAtoms reads atoms from fields: three fields each (subject relation
// object), or one `r(s,o)` each when datalogLike; a field `?a!=?b` is an
// inequality.
func amieAtoms(fs []field, datalogLike bool) (atoms []datalog.Atom, cmps []datalog.Literal, err *colError) {
	for i := 0; i < len(fs); {
		f := fs[i]
		if l, r, ok := strings.Cut(f.text, "!="); ok && !strings.Contains(f.text, "(") {
			a, e1 := amieTerm(l, f.off+1)
			b, e2 := amieTerm(r, f.off+len(l)+3)
			if e1 != nil || e2 != nil {
				return nil, nil, cmpErr(e1, e2)
			}
			cmps = append(cmps, neq(a, b))
			i++
			continue
		}
		var s, rel, o string
		var so, oo int
		if datalogLike {
			open := strings.IndexByte(f.text, '(')
			args, ok := strings.CutSuffix(f.text[max(open, 0):], ")")
			k := strings.LastIndexByte(args, ',')
			if open <= 0 || !ok || k < 0 {
				return nil, nil, &colError{f.off + 1, fmt.Sprintf("expected an atom relation(?a,?b), found %q", f.text)}
			}
			rel, s, o = f.text[:open], args[1:k], args[k+1:]
			so, oo = f.off+open+2, f.off+open+k+2
			i++
		} else {
			if i+3 > len(fs) {
				return nil, nil, &colError{f.off + 1, fmt.Sprintf("an atom needs three terms (subject relation object), found %d", len(fs)-i)}
			}
			s, rel, o = f.text, fs[i+1].text, fs[i+2].text
			so, oo = f.off+1, fs[i+2].off+1
			i += 3
		}
		a, e1 := amieTerm(s, so)
		b, e2 := amieTerm(o, oo)
		if e1 != nil || e2 != nil {
			return nil, nil, cmpErr(e1, e2)
		}
		atoms = append(atoms, datalog.Atom{Pred: rel, Args: []datalog.Term{a, b}})
	}
	return atoms, cmps, nil
}

func cmpErr(a, b *colError) *colError {
	if a != nil {
		return a
	}
	return b
}

// amieTerm reads a term: ?a (?a1, ...) is the variable A (A1, ...), any
// other text a constant.
func amieTerm(s string, col int) (datalog.Term, *colError) {
	if s == "" {
		return datalog.Term{}, &colError{col, "empty term"}
	}
	name, ok := strings.CutPrefix(s, "?")
	if !ok {
		return symbol(s), nil
	}
	v := strings.ToUpper(name[:min(1, len(name))]) + name[min(1, len(name)):]
	for i, r := range v {
		if i == 0 && !datalog.IsVarStart(r) || i > 0 && !datalog.IsNamePart(r) {
			return datalog.Term{}, &colError{col, fmt.Sprintf("%q is not a variable AMIE writes (?a, ?b, ?a1, ...)", s)}
		}
	}
	if v == "" || v == "_" {
		return datalog.Term{}, &colError{col, fmt.Sprintf("%q is not a variable AMIE writes (?a, ?b, ?a1, ...)", s)}
	}
	return variable(v), nil
}
