package exchange

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// ReflexiveToken is the constant AnyBURL writes for "the entity itself" in
// rules learned with REWRITE_REFLEXIV: a triple (a, r, a) is learned as (a,
// r, me_myself_i). Read, r(V, me_myself_i) is r(V, V).
const ReflexiveToken = "me_myself_i"

// ReadAnyBURL reads an AnyBURL rule file (see the package documentation):
// every line `predicted<TAB>correct<TAB>confidence<TAB>rule` (blank lines
// are skipped; the three numbers may also be separated by spaces, as in
// SAFRAN's examples). Every malformed line is an error naming file:line:col
// (the first MaxErrors of them, in an [*Errors]). A rule's weight is
// correct/(predicted + smoothing), or its confidence column with
// opt.Column; a zero-body rule becomes the prior of its relation. Variables
// keep their names (X, Y, A, B, ...); a cyclic rule gets the comparisons
// drumql mine writes for chain rules (see chainIdentity).
func ReadAnyBURL(file string, r io.Reader, opt ReadOptions) (*Result, error) {
	c := newCollector(file)
	s := smoothing(opt.Smoothing)
	err := eachLine(r, func(n int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		c.res.Report.Lines++
		pred, corr, conf, rule, col, lerr := splitAnyBURLLine(line)
		if lerr != nil {
			c.errorf(n, lerr.Col, lerr.Msg)
			return nil
		}
		head, body, lerr := parseAnyBURLRule(rule, col)
		if lerr != nil {
			c.errorf(n, lerr.Col, lerr.Msg)
			return nil
		}
		if len(body) == 0 {
			if x, y := head.Args[0], head.Args[1]; x.Kind == datalog.Var && y.Kind == datalog.Var && x.Value != y.Value {
				c.errorf(n, col, fmt.Sprintf("%s has no body and no constant: a zero-body rule is r(X,c) <= or r(c,Y) <=", head.Pred))
				return nil
			}
			c.addPrior(head.Pred)
			return nil
		}
		rl := datalog.Rule{Head: head, Pos: datalog.Pos{File: file, Line: n, Col: col},
			Comment: fmt.Sprintf("from anyburl support=%d body=%d conf=%s", corr, pred, fmtG(conf))}
		for _, a := range body {
			rl.Body = append(rl.Body, atomLit(a))
		}
		rl.Body = append(rl.Body, chainIdentity(head, body)...)
		if v, _, ok := checkSafe(&rl); !ok {
			c.errorf(n, col, fmt.Sprintf("the head variable %s does not occur in the body", v))
			return nil
		}
		if opt.Column {
			rl.Weight = conf
		} else {
			rl.Weight = smoothed(float64(corr), float64(pred), s)
		}
		c.add(rl)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c.finish()
}

// colError is an error at a byte column of a line (1-based).
type colError struct {
	Col int
	Msg string
}

// splitAnyBURLLine splits a rule line into its three numbers and the rule
// text (and the rule's 1-based column).
func splitAnyBURLLine(line string) (pred, corr int64, conf float64, rule string, col int, err *colError) {
	var fs []field
	if strings.Count(line, "\t") >= 3 {
		for i, off := 0, 0; i < 4; i++ {
			text := line[off:]
			if i < 3 {
				text, _, _ = strings.Cut(text, "\t")
			}
			lead := len(text) - len(strings.TrimLeft(text, " "))
			fs = append(fs, field{strings.TrimSpace(text), off + lead})
			off += len(text) + 1
		}
	} else {
		// Spaces instead of tabs (as in SAFRAN's examples): the rule is
		// what follows the three numbers.
		fs = fields(line, 0)
		if len(fs) > 4 {
			fs = fs[:4]
		}
	}
	if len(fs) < 4 || strings.ContainsRune(fs[2].text, '(') {
		n := len(fs)
		for i, f := range fs {
			if strings.ContainsRune(f.text, '(') {
				n = i
				break
			}
		}
		return 0, 0, 0, "", 0, &colError{0, fmt.Sprintf(
			"expected predicted<TAB>correct<TAB>confidence<TAB>rule, found %d field(s) before the rule", min(n, 3))}
	}
	count := func(f field, what string) (int64, *colError) {
		v, perr := strconv.ParseInt(f.text, 10, 64)
		if perr != nil || v < 0 {
			return 0, &colError{f.off + 1, fmt.Sprintf("%s %q is not a count (a whole number, at least 0)", what, f.text)}
		}
		return v, nil
	}
	if pred, err = count(fs[0], "predicted"); err != nil {
		return
	}
	if corr, err = count(fs[1], "correct"); err != nil {
		return
	}
	if corr > pred {
		return 0, 0, 0, "", 0, &colError{fs[1].off + 1, fmt.Sprintf("correct %d is more than predicted %d", corr, pred)}
	}
	conf, perr := strconv.ParseFloat(fs[2].text, 64)
	if perr != nil || !(conf >= 0 && conf <= 1) {
		return 0, 0, 0, "", 0, &colError{fs[2].off + 1, fmt.Sprintf("confidence %q is not a number in [0, 1]", fs[2].text)}
	}
	return pred, corr, conf, strings.TrimRight(line[fs[3].off:], " \t"), fs[3].off + 1, nil
}

// parseAnyBURLRule parses `head <= body` (col is the rule's column).
func parseAnyBURLRule(rule string, col int) (head datalog.Atom, body []datalog.Atom, err *colError) {
	i := strings.Index(rule, " <=")
	if i < 0 || strings.Contains(rule[i+3:], " <=") {
		return head, nil, &colError{col, `expected one " <= " between the head and the body`}
	}
	if head, err = parseAnyBURLAtom(rule[:i], col); err != nil {
		return
	}
	rest := rule[i+3:]
	off := col + i + 3
	for {
		n := len(rest)
		rest = strings.TrimLeft(rest, " ")
		off += n - len(rest)
		if rest == "" {
			return head, body, nil
		}
		end := strings.Index(rest, "), ")
		text := rest
		if end >= 0 {
			text = rest[:end+1]
		}
		a, err := parseAnyBURLAtom(text, off)
		if err != nil {
			return head, nil, err
		}
		body = append(body, a)
		if end < 0 {
			return head, body, nil
		}
		rest = rest[end+2:]
		off += end + 2
	}
}

// parseAnyBURLAtom parses `rel(a,b)` (col is its column): a single
// capital letter is a variable, ReflexiveToken the other argument, any
// other term a constant. A comma inside a name is read when the other
// argument is a variable (AnyBURL's atoms always have one).
func parseAnyBURLAtom(s string, col int) (datalog.Atom, *colError) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return datalog.Atom{}, &colError{col, fmt.Sprintf("expected an atom relation(a,b), found %q", s)}
	}
	rel := s[:open]
	if strings.ContainsAny(rel, " \t") {
		return datalog.Atom{}, &colError{col, fmt.Sprintf("the relation name %q has a space", rel)}
	}
	args := s[open+1 : len(s)-1]
	k := strings.IndexByte(args, ',')
	switch {
	case k < 0:
		return datalog.Atom{}, &colError{col, fmt.Sprintf("%s needs two arguments, found (%s)", s, args)}
	case strings.Count(args, ",") > 1:
		if first := strings.TrimSpace(args[:k]); !isAnyBURLVar(first) {
			if k = strings.LastIndexByte(args, ','); !isAnyBURLVar(strings.TrimSpace(args[k+1:])) {
				return datalog.Atom{}, &colError{col, fmt.Sprintf("%s: cannot tell its two arguments apart (a name with a comma and no variable)", s)}
			}
		}
	}
	a, b := strings.TrimSpace(args[:k]), strings.TrimSpace(args[k+1:])
	if a == "" || b == "" {
		return datalog.Atom{}, &colError{col, fmt.Sprintf("%s has an empty argument", s)}
	}
	switch {
	case a == ReflexiveToken && b == ReflexiveToken:
		return datalog.Atom{}, &colError{col, fmt.Sprintf("%s: both arguments are %s", s, ReflexiveToken)}
	case b == ReflexiveToken:
		b = a
	case a == ReflexiveToken:
		a = b
	}
	return datalog.Atom{Pred: rel, Args: []datalog.Term{anyBURLTerm(a), anyBURLTerm(b)}}, nil
}

// isAnyBURLVar reports whether s is an AnyBURL variable: one capital
// letter A to Z.
func isAnyBURLVar(s string) bool { return len(s) == 1 && s[0] >= 'A' && s[0] <= 'Z' }

func anyBURLTerm(s string) datalog.Term {
	if isAnyBURLVar(s) {
		return variable(s)
	}
	return symbol(s)
}
