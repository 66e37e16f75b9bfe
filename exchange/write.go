package exchange

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// The reasons a rule is not written in AnyBURL's format, in the order
// [WriteReport.Skipped] lists them.
const (
	SkipNegation   = "negation"
	SkipExpression = "expressions or aggregates"
	SkipBuiltin    = "built-in tests (contains, match)"
	SkipArity      = "atoms that are not binary"
	SkipComparison = "comparisons other than != between terms of the rule"
	SkipGround     = "a head without variables"
	SkipShape      = "a body that is not a path from the head's variable (AnyBURL's rule shapes)"
	SkipName       = "names AnyBURL cannot write (whitespace, commas, parentheses or <= in them, a single capital letter, me_myself_i)"
)

var skipOrder = []string{SkipNegation, SkipExpression, SkipBuiltin, SkipArity, SkipComparison, SkipGround, SkipShape, SkipName}

// Skip counts the rules left out for one reason.
type Skip struct {
	Reason string
	Count  int
	First  datalog.Pos // where the first of them is
}

// WriteReport says what writing rules in AnyBURL's format did.
type WriteReport struct {
	// Written is the number of rules written.
	Written int
	// Skipped lists, by reason, the rules AnyBURL cannot express.
	Skipped []Skip
	// Comparisons counts the != comparisons dropped as implied by
	// AnyBURL's object identity.
	Comparisons int
	// MadeUp counts the rules written with counts made up from their
	// weight, having none in their comment.
	MadeUp int
	// OtherWeight counts the rules whose comment's counts (written) give
	// another weight than theirs under the smoothing: an edited weight, or
	// one that is not a confidence (drumql mine --weight score).
	OtherWeight int
}

// SkippedRules is the number of rules left out.
func (r *WriteReport) SkippedRules() int {
	n := 0
	for _, s := range r.Skipped {
		n += s.Count
	}
	return n
}

// WriteAnyBURL writes the rules AnyBURL can express in its format, one
// line each, `predicted<TAB>correct<TAB>confidence<TAB>rule`, in the order
// given (see the package documentation for the shapes, and for what is
// dropped or skipped). The counts are the rule's support and body counts
// when its Comment has them (drumql mine writes "support=N body=M"; the
// confidence is then correct/predicted); otherwise they are made up so
// that correct/(predicted + smoothing) gives the weight back to 4
// significant digits, and the confidence column is the weight.
func WriteAnyBURL(w io.Writer, rules []datalog.Rule, opt WriteOptions) (WriteReport, error) {
	var rep WriteReport
	skips := map[string]*Skip{}
	s := smoothing(opt.Smoothing)
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := range rules {
		r := &rules[i]
		text, dropped, reason := anyBURLRule(r)
		if reason != "" {
			if sk := skips[reason]; sk != nil {
				sk.Count++
			} else {
				skips[reason] = &Skip{Reason: reason, Count: 1, First: r.Pos}
			}
			continue
		}
		rep.Comparisons += dropped
		weight := r.Weight
		if weight <= 0 {
			weight = 1
		}
		var pred, corr int64
		var conf string
		if sup, body, ok := commentCounts(r.Comment); ok && sup > 0 && body >= sup {
			pred, corr = body, sup
			conf = strconv.FormatFloat(float64(sup)/float64(body), 'g', -1, 64)
			if smoothed(float64(sup), float64(body), s) != roundSig(weight, weightDigits) {
				rep.OtherWeight++
			}
		} else {
			pred, corr = countsFor(weight, s)
			conf = strconv.FormatFloat(weight, 'g', -1, 64)
			rep.MadeUp++
		}
		if _, err := fmt.Fprintf(bw, "%d\t%d\t%s\t%s\n", pred, corr, conf, text); err != nil {
			return rep, err
		}
		rep.Written++
	}
	for _, reason := range skipOrder {
		if sk := skips[reason]; sk != nil {
			rep.Skipped = append(rep.Skipped, *sk)
		}
	}
	return rep, bw.Flush()
}

// anyBURLRule returns r in AnyBURL's syntax and how many comparisons it
// dropped, or why AnyBURL cannot express it: a path from the head's
// variable through binary atoms (pathParts, pathOrder), its variables
// renamed X, Y, A, B, ... (pathNames), its comparisons only inequalities
// that object identity implies (checkComparisons).
func anyBURLRule(r *datalog.Rule) (text string, dropped int, reason string) {
	atoms, cmps, reason := pathParts(r)
	if reason != "" {
		return "", 0, reason
	}
	order, terms, reason := pathOrder(r, atoms)
	if reason != "" {
		return "", 0, reason
	}
	names, reason := pathNames(r, terms)
	if reason != "" {
		return "", 0, reason
	}
	if reason := checkComparisons(r, atoms, cmps, names); reason != "" {
		return "", 0, reason
	}
	text, ok := writePath(r, atoms, order, names)
	if !ok {
		return "", 0, SkipName
	}
	return text, len(cmps), ""
}

// pathParts splits r's body into its atoms and comparisons, or says why r
// is not a rule of binary atoms AnyBURL can read.
func pathParts(r *datalog.Rule) (atoms []datalog.Atom, cmps []datalog.Literal, reason string) {
	if len(r.Head.Args) != 2 {
		return nil, nil, SkipArity
	}
	for _, t := range r.Head.Args {
		if t.Kind == datalog.Compound {
			return nil, nil, SkipExpression
		}
	}
	for _, l := range r.Body {
		switch l.Kind {
		case datalog.Negated:
			return nil, nil, SkipNegation
		case datalog.Builtin:
			return nil, nil, SkipBuiltin
		case datalog.Comparison:
			if l.Left.Kind == datalog.Compound || l.Right.Kind == datalog.Compound {
				return nil, nil, SkipExpression
			}
			cmps = append(cmps, l)
			continue
		}
		if len(l.Atom.Args) != 2 {
			return nil, nil, SkipArity
		}
		for _, t := range l.Atom.Args {
			if t.Kind == datalog.Compound {
				return nil, nil, SkipExpression
			}
		}
		atoms = append(atoms, l.Atom)
	}
	for _, a := range append([]datalog.Atom{r.Head}, atoms...) {
		for _, t := range a.Args {
			if t.Kind != datalog.Var && t.Value == ReflexiveToken {
				return nil, nil, SkipName // it would read back as the entity itself
			}
		}
	}
	return atoms, cmps, ""
}

// pathOrder orders the atoms as a path from the head's first variable and
// returns the order and the path's terms, or says why they are not one of
// AnyBURL's rule shapes.
func pathOrder(r *datalog.Rule, atoms []datalog.Atom) (order []int, terms []datalog.Term, reason string) {
	h0, h1 := r.Head.Args[0], r.Head.Args[1]
	var start string
	switch {
	case h0.Kind == datalog.Var:
		start = h0.Value
	case h1.Kind == datalog.Var:
		start = h1.Value
	default:
		return nil, nil, SkipGround
	}
	order, terms, ok := walkPath(start, atoms)
	if !ok || len(atoms) == 0 {
		return nil, nil, SkipShape
	}
	last := terms[len(terms)-1]
	cyclic := h0.Kind == datalog.Var && h1.Kind == datalog.Var && h0.Value != h1.Value
	switch {
	case cyclic:
		if !isVar(last, h1.Value) {
			return nil, nil, SkipShape
		}
	case h0.Kind == datalog.Var && h1.Kind == datalog.Var: // r(X,X): one atom
		if len(atoms) != 1 {
			return nil, nil, SkipShape
		}
	}
	if !cyclic && last.Kind == datalog.Var && (last.Value == h0.Value || last.Value == h1.Value) {
		return nil, nil, SkipShape
	}
	return order, terms, ""
}

// pathNames names the head's variables X and Y and the path's A, B, ...
func pathNames(r *datalog.Rule, terms []datalog.Term) (map[string]string, string) {
	h0, h1 := r.Head.Args[0], r.Head.Args[1]
	names := map[string]string{}
	if h0.Kind == datalog.Var {
		names[h0.Value] = "X"
	}
	if h1.Kind == datalog.Var && !(h0.Kind == datalog.Var && h0.Value == h1.Value) {
		names[h1.Value] = "Y"
	}
	next := 'A'
	for _, t := range terms[1:] {
		if _, named := names[t.Value]; t.Kind != datalog.Var || named {
			continue
		}
		if next > 'W' {
			return nil, SkipName
		}
		names[t.Value] = string(next)
		next++
	}
	return names, ""
}

// checkComparisons accepts only a != between two terms of the rule, which
// object identity implies; any other comparison is not expressible.
func checkComparisons(r *datalog.Rule, atoms []datalog.Atom, cmps []datalog.Literal, names map[string]string) string {
	consts := map[string]bool{}
	for _, a := range append([]datalog.Atom{r.Head}, atoms...) {
		for _, t := range a.Args {
			if t.Kind != datalog.Var {
				consts[t.Value] = true
			}
		}
	}
	known := func(t datalog.Term) bool {
		if t.Kind == datalog.Var {
			return t.Value != "_" && names[t.Value] != ""
		}
		return consts[t.Value]
	}
	for _, l := range cmps {
		if l.Op != datalog.OpNe || !known(l.Left) || !known(l.Right) ||
			l.Left.Kind == l.Right.Kind && l.Left.Value == l.Right.Value {
			return SkipComparison
		}
	}
	return ""
}

// writePath writes the rule in AnyBURL's syntax, the body atoms in path
// order; false when a name cannot be written.
func writePath(r *datalog.Rule, atoms []datalog.Atom, order []int, names map[string]string) (string, bool) {
	term := func(t datalog.Term) (string, bool) {
		if t.Kind == datalog.Var {
			return names[t.Value], true
		}
		return t.Value, writableName(t.Value) && !isAnyBURLVar(t.Value)
	}
	// atom writes a; a body atom r(V, V) as r(V,me_myself_i).
	atom := func(a datalog.Atom, body bool) (string, bool) {
		x, okX := term(a.Args[0])
		y, okY := term(a.Args[1])
		if body && a.Args[0].Kind == datalog.Var && isVar(a.Args[1], a.Args[0].Value) {
			y = ReflexiveToken
		}
		return a.Pred + "(" + x + "," + y + ")", okX && okY && writableName(a.Pred)
	}
	var b strings.Builder
	h, ok := atom(r.Head, false)
	b.WriteString(h + " <= ")
	for i, k := range order {
		s, okA := atom(atoms[k], true)
		ok = ok && okA
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String(), ok
}

// writableName reports whether AnyBURL's syntax delimits s: not empty, no
// whitespace, comma, parenthesis or "<=".
func writableName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\n\r\f\v,()") && !strings.Contains(s, "\u00a0") && !strings.Contains(s, "<=")
}
