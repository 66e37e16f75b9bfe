package parser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/drumql/drumql/datalog"
)

// ParseString parses a Datalog program; filename is used in positions and
// diagnostics. Imports are recorded in Program.Imports, not resolved (see
// [ParseFile]).
//
// The source is scanned once, cut into statements after each top-level "."
// or "?", and every statement is parsed on its own, so that all syntax
// errors of the file are reported, not only the first. On error the
// returned error is a [datalog.Diagnostics] in source order, and the
// program holds the statements that could be parsed.
func ParseString(filename, src string) (*datalog.Program, error) {
	prog := &datalog.Program{}
	ds, _ := parseSource(context.Background(), prog, filename, src, false)
	return prog, ds.Err()
}

// ParseTyped parses a query or fact typed on a command line, as
// ParseQuery (a final "." is dropped, a missing "?" supplied); a syntax
// error's message is the diagnostic rendered under the text typed (less
// white space around it and the final "."), caret included.
func ParseTyped(s string) (datalog.Query, error) {
	src := strings.TrimSuffix(strings.TrimSpace(s), ".")
	q, err := ParseQuery(src)
	var ds datalog.Diagnostics
	if err != nil && errors.As(err, &ds) {
		var b strings.Builder
		_ = ds.Render(&b, func(string) []byte { return []byte(src) })
		return q, errors.New(strings.TrimRight(b.String(), "\n"))
	}
	return q, err
}

// ParseQuery parses a single query such as `wife(X, alice)?`; the trailing
// "?" is optional. Positions name the file "query".
func ParseQuery(src string) (datalog.Query, error) {
	const file = "query"
	toks, _ := scan(file, src)
	n := len(toks) - 1 // toks[n] is EOF
	start := datalog.Pos{File: file, Line: 1, Col: 1}
	if n == 0 || n == 1 && toks[0].Type == tokPunct && (toks[0].Value == "?" || toks[0].Value == ".") {
		if n == 1 {
			start = pos(toks[0].Pos)
		}
		return datalog.Query{}, datalog.Diagnostics{{Pos: start, Severity: datalog.Error,
			Msg: "empty query: write an atom such as wife(X, alice)?"}}
	}
	var end lexer.Position // where a "?" the source does not have is supplied
	if !(toks[n-1].Type == tokPunct && (toks[n-1].Value == "?" || toks[n-1].Value == ".")) {
		end = toks[n].Pos
		q := lexer.Token{Type: tokPunct, Value: "?", Pos: end}
		toks = append(toks[:n], q, toks[n])
	}
	prog := &datalog.Program{}
	i := 0
	ds, _ := parseStream(context.Background(), prog, func() (lexer.Token, bool) {
		t := toks[i]
		i++
		return t, i < len(toks)
	}, false)
	if len(ds) > 0 {
		for j, d := range ds {
			if end.Line > 0 && d.Pos == pos(end) {
				// The supplied "?" was not typed: the query ended early.
				ds[j].Msg = strings.Replace(d.Msg, `unexpected "?"`, "unexpected end of query", 1)
			}
		}
		return datalog.Query{}, ds
	}
	if len(prog.Queries) != 1 || len(prog.Facts)+len(prog.Rules)+len(prog.Imports) > 0 {
		return datalog.Query{}, datalog.Diagnostics{{Pos: start, Severity: datalog.Error,
			Msg: "expected one query, an atom such as wife(X, alice)?"}}
	}
	return prog.Queries[0], nil
}

// parseSource scans and parses src into prog; with participleOnly the
// fast path is not used (for tests). See parseStream for ctx.
func parseSource(ctx context.Context, prog *datalog.Program, filename, src string, participleOnly bool) (datalog.Diagnostics, error) {
	s := newScanner(filename, src)
	return parseStream(ctx, prog, s.next, participleOnly)
}

// ctxEvery is how many tokens parseStream reads between two looks at its
// context (so a short source is parsed whole whatever the context).
const ctxEvery = 4096

// parseStream parses the statements of a token stream into prog. next
// returns the tokens in order, ok false with the final EOF token.
//
// Each statement is first given to a hand-written recursive-descent parser
// of the same LL(1) grammar (fast.go), which builds the AST directly; when
// it does not accept the statement, the participle grammar parses it and
// reports the syntax or lowering error. The participle path alone is
// correct but several times slower (see the benchmarks), and the two are
// checked against each other by tests and fuzzing.
//
// Every ctxEvery tokens it looks at ctx: when ctx is done it stops and
// returns ctx's error, prog holding the statements parsed so far.
func parseStream(ctx context.Context, prog *datalog.Program, next func() (lexer.Token, bool), participleOnly bool) (datalog.Diagnostics, error) {
	p := statementParser()
	var ds datalog.Diagnostics
	lw := lowerer{prog: prog}
	var stmt []lexer.Token
	for more, n := true, 0; more; {
		if n++; n%ctxEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var t lexer.Token
		t, more = next()
		// A statement ends after "." or "?", and after an unterminated
		// string (which swallowed the rest of its line).
		isEnd := t.Type == tokPunct && (t.Value == "." || t.Value == "?") ||
			t.Type == tokError && t.Value == msgUnterminatedString
		if !more {
			isEnd = true
		} else {
			stmt = append(stmt, t)
		}
		if !isEnd || len(stmt) == 0 {
			continue
		}
		if !participleOnly && lw.fast(stmt) {
			stmt = stmt[:0]
			continue
		}
		bad := false
		for j := range stmt {
			if stmt[j].Type == tokError {
				ds = append(ds, datalog.Diagnostic{Pos: pos(stmt[j].Pos), Severity: datalog.Error, Msg: stmt[j].Value})
				bad = true
			}
		}
		if !bad {
			pl, err := lexer.Upgrade(&tokenLexer{toks: stmt, eof: t.Pos})
			if err == nil {
				var st *gStatement
				st, err = p.ParseFromLexer(pl)
				if err == nil {
					lw.statement(st)
				}
			}
			if err != nil {
				ds = append(ds, syntaxError(err, stmt))
			}
		}
		stmt = stmt[:0]
	}
	ds = append(ds, lw.ds...)
	ds.Sort()
	return ds, nil
}

func pos(p lexer.Position) datalog.Pos {
	return datalog.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}

// syntaxError turns a participle error in the statement stmt into a
// diagnostic. Two mistakes at the start of a statement get their own
// words rather than participle's list of what the grammar expected: a
// weight that is not a number (NaN :: p(a).) and a statement that does not
// start with a name or a directive.
func syntaxError(err error, stmt []lexer.Token) datalog.Diagnostic {
	if len(stmt) > 1 && isPunct(&stmt[1], "::") && stmt[0].Type != tokNumber {
		return datalog.Diagnostic{Pos: pos(stmt[0].Pos), Severity: datalog.Error,
			Msg: "weight " + cut(stmt[0].Value, maxTokenExcerpt) + " is not a number: a weight is a number in (0, 1], such as 0.9 :: p(a)."}
	}
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		what := "unexpected " + excerpt(ute.Unexpected.Value, maxTokenExcerpt)
		if ute.Unexpected.EOF() {
			what = "unexpected end of file"
		}
		expected := expectedText(ute.Message())
		if first := stmt[0]; ute.Unexpected.Pos == first.Pos {
			switch {
			case first.Type == tokVar:
				what = "unexpected variable " + cut(first.Value, maxTokenExcerpt)
				expected = ": a fact, rule or query starts with a predicate name, lowercase or quoted (" + excerpt(first.Value, maxTokenExcerpt) + ")"
			case isPunct(&first, ".") || isPunct(&first, "?"):
				what = "empty statement"
				expected = ": expected a fact, a rule or a query before " + strconv.Quote(first.Value)
			default:
				expected = ", expected a fact, a rule, a query or a directive"
			}
		}
		return datalog.Diagnostic{Pos: pos(ute.Position()), Severity: datalog.Error, Msg: what + expected}
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		return datalog.Diagnostic{Pos: pos(perr.Position()), Severity: datalog.Error, Msg: perr.Message()}
	}
	return datalog.Diagnostic{Severity: datalog.Error, Msg: err.Error()}
}

// nodeNames replaces participle's names of grammar nodes in "expected"
// lists with words.
var nodeNames = strings.NewReplacer(
	// a parenthesised aggregate target (min (X + 1) : {...}) is rare
	// enough not to be listed after every argument list
	`")" (":" (("{" GConjunct "}") | GAtom))?`, `")"`,
	`GPrimary ("^" GUnary)?`, "a literal or an expression",
	`GLiteral ("," GLiteral)*`, "a literal",
	`GConjunct (";" GConjunct)*`, "a body",
	`GExpr ("," GExpr)*`, "a term",
	"GPrimary", "an expression",
	"GExpr", "an expression",
	"GConjunct", "a body",
	"GDisjunct", "a body",
	"GName", "a name",
	`GTerm ("," GTerm)*`, "a term",
	"GLiteral", "a literal",
	"GAtom", "an atom",
	"GTerm", "a term",
	"GClause", "a clause",
	"GImport", "an import",
	"GAggregate", "an aggregation directive",
	"GThreshold", "a threshold directive",
	"GMinValue", "<number>",
	"GParam", "a parameter",
	`GGroup (";" GGroup)*`, "rule numbers",
	`GGroupParam ("," GGroupParam)*`, "a parameter",
	"GGroups", "a groups directive",
	"GGroupParam", "a parameter",
	"GGroup", "rule numbers",
	" | ", " or ",
)

// expectedText returns participle's "(expected ...)" part of msg as
// ", expected ...", in words.
func expectedText(msg string) string {
	i := strings.Index(msg, " (expected ")
	if i < 0 || !strings.HasSuffix(msg, ")") {
		return ""
	}
	e := msg[i+len(" (expected ") : len(msg)-1]
	if strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") {
		e = e[1 : len(e)-1]
	}
	return ", expected " + nodeNames.Replace(e)
}

// lowerer turns grammar structs into the datalog AST.
type lowerer struct {
	prog *datalog.Program
	ds   datalog.Diagnostics
	// minAt is where the file's @min directive is (Line 0: none yet).
	minAt lexer.Position
}

func (l *lowerer) errorf(p lexer.Position, format string, args ...any) {
	l.ds = append(l.ds, datalog.Diagnostic{Pos: pos(p), Severity: datalog.Error, Msg: fmt.Sprintf(format, args...)})
}

func (l *lowerer) statement(st *gStatement) {
	if st.Import != nil {
		l.prog.Imports = append(l.prog.Imports, datalog.Import{Path: unquote(st.Import.Path), Pos: pos(st.Import.Pos)})
		return
	}
	if a := st.Aggregate; a != nil {
		agg := datalog.Aggregate{Method: a.Method, Pos: pos(a.Pos)}
		if agg.Pred = a.For; strings.HasPrefix(a.For, `"`) {
			agg.Pred = unquote(a.For)
		}
		for _, p := range a.Params {
			v, err := strconv.ParseFloat(p.Value, 64)
			if err != nil {
				l.errorf(p.Pos, "parameter %s: %s is out of range", p.Name, p.Value)
				continue
			}
			agg.Params = append(agg.Params, datalog.Param{Name: p.Name, Value: v})
		}
		l.prog.Aggregates = append(l.prog.Aggregates, agg)
		return
	}
	if th := st.Threshold; th != nil {
		l.threshold(th)
		return
	}
	if g := st.Groups; g != nil {
		l.ruleGroups(g)
		return
	}
	c := st.Clause
	weight := 1.0
	if c.Weight != "" {
		w, err := strconv.ParseFloat(c.Weight, 64)
		if err != nil {
			l.errorf(c.Pos, "weight %s is out of range", c.Weight)
			return
		}
		weight = w
	}
	head, ok := l.atom(c.Head)
	if !ok {
		return
	}
	if c.End == "?" {
		switch {
		case c.Weight != "":
			l.errorf(c.Pos, "a query cannot have a weight")
		case c.Body != nil:
			l.errorf(c.Body.Pos, "a query is a single atom; it cannot have a body")
		case len(c.Heads) > 0:
			l.errorf(c.Heads[0].Pos, "a query is a single atom")
		case l.constantArgs(head, "a query"):
			l.prog.Queries = append(l.prog.Queries, datalog.Query{Atom: head, Pos: pos(c.Pos)})
		}
		return
	}
	if c.Body == nil {
		if len(c.Heads) > 0 {
			l.errorf(c.Heads[0].Pos, "several heads need a body: a(X), b(X) :- c(X).")
			return
		}
		if slices.ContainsFunc(head.Args, func(t datalog.Term) bool { return t.Kind == datalog.Compound }) {
			// p(1 + 2). is computed: a rule with no body.
			l.prog.Rules = append(l.prog.Rules, datalog.Rule{Weight: weight, Head: head, Pos: pos(c.Pos)})
			return
		}
		l.prog.Facts = append(l.prog.Facts, datalog.Fact{Weight: weight, Atom: head, Pos: pos(c.Pos)})
		return
	}
	heads := []datalog.Atom{head}
	for _, g := range c.Heads {
		h, ok := l.atom(g)
		if !ok {
			return
		}
		heads = append(heads, h)
	}
	bodies, ok := l.disjunct(c.Body)
	if !ok {
		return
	}
	for _, h := range heads {
		for _, body := range bodies {
			if len(body) == 0 && !slices.ContainsFunc(h.Args, func(t datalog.Term) bool { return t.Kind != datalog.Symbol && t.Kind != datalog.Number }) {
				// p(1) :- true. is the fact p(1).
				l.prog.Facts = append(l.prog.Facts, datalog.Fact{Weight: weight, Atom: h, Pos: pos(c.Pos)})
				continue
			}
			r := datalog.Rule{Weight: weight, Head: h, Body: body, Pos: pos(c.Pos)}
			r.LocalizeAggregates()
			l.prog.Rules = append(l.prog.Rules, r)
		}
	}
}

// constantArgs reports whether the arguments of a (of a fact or a query,
// what) are constants or variables, and says so when they are not.
func (l *lowerer) constantArgs(a datalog.Atom, what string) bool {
	for _, t := range a.Args {
		if t.Kind == datalog.Compound {
			l.ds = append(l.ds, datalog.Diagnostic{Pos: t.Pos, Severity: datalog.Error,
				Msg: what + "'s arguments are constants or variables, not expressions: compute " + t.String() + " in a rule"})
			return false
		}
	}
	return true
}

// threshold lowers `@min X.`: X must be a number in (0, 1], and a file
// sets its threshold once.
func (l *lowerer) threshold(th *gThreshold) {
	if l.minAt.Line > 0 {
		l.errorf(th.Pos, "duplicate @min, first at line %d: a file has one threshold", l.minAt.Line)
		return
	}
	l.minAt = th.Pos
	v := th.Value
	if c := v.Value[0]; !(c == '-' || c >= '0' && c <= '9') {
		l.errorf(v.Pos, "@min takes a number in (0, 1], not %s", v.Value)
		return
	}
	x, err := strconv.ParseFloat(v.Value, 64)
	if err != nil || !(x > 0 && x <= 1) {
		l.errorf(v.Pos, "@min %s is outside (0, 1]: the threshold is the smallest confidence kept", v.Value)
		return
	}
	l.prog.Thresholds = append(l.prog.Thresholds, datalog.Threshold{Min: x, Pos: pos(th.Pos)})
}

var cmpOps = map[string]datalog.CmpOp{
	"=": datalog.OpEq, "!=": datalog.OpNe, "<": datalog.OpLt,
	"<=": datalog.OpLe, ">": datalog.OpGt, ">=": datalog.OpGe,
}

func (l *lowerer) atom(g *gAtom) (datalog.Atom, bool) {
	a := datalog.Atom{Pred: g.Pred, Pos: pos(g.Pos)}
	if g.Pred[0] == '"' {
		a.Pred = unquote(g.Pred)
	}
	if len(g.Args) > 0 {
		a.Args = make([]datalog.Term, len(g.Args))
		for i, gx := range g.Args {
			t, ok := l.expr(gx)
			if !ok {
				return a, false
			}
			a.Args[i] = t
		}
	}
	return a, true
}

func (l *lowerer) term(g *gTerm) (datalog.Term, bool) {
	t := datalog.Term{Value: g.Value, Pos: pos(g.Pos)}
	r, _ := utf8.DecodeRuneInString(g.Value)
	switch c := g.Value[0]; {
	case c == '"':
		t.Kind = datalog.Symbol
		t.Value = unquote(g.Value)
	case datalog.IsVarStart(r):
		t.Kind = datalog.Var
	case c == '-' || c >= '0' && c <= '9':
		t.Kind = datalog.Number
		v, ok := datalog.CanonicalNumber(g.Value)
		if !ok {
			l.errorf(g.Pos, "number %s is out of range", g.Value)
			return t, false
		}
		t.Value = v
	default:
		t.Kind = datalog.Symbol
	}
	return t, true
}

// unquote decodes a string token that the scanner has checked.
func unquote(raw string) string {
	s := raw[1 : len(raw)-1]
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b = append(b, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'u':
			r := hex4(s[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(s)+0 && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2 := hex4(s[i+3 : i+7]); utf16.DecodeRune(r, r2) != utf8.RuneError {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			b = utf8.AppendRune(b, r)
		default: // " and \
			b = append(b, s[i])
		}
	}
	return string(b)
}

func hex4(s string) rune {
	v, _ := strconv.ParseUint(s, 16, 32)
	return rune(v)
}

// How many characters of a token and of a path messages quote.
const (
	maxTokenExcerpt = 40
	maxPathExcerpt  = 200
)

// excerpt quotes s for a message: its first max characters, and an
// ellipsis after the quotes when it is longer.
func excerpt(s string, max int) string {
	if p := prefix(s, max); len(p) < len(s) {
		return strconv.Quote(p) + "…"
	}
	return strconv.Quote(s)
}

// cut returns the first max characters of s followed by an ellipsis, or s
// when it is not longer.
func cut(s string, max int) string {
	if p := prefix(s, max); len(p) < len(s) {
		return p + "…"
	}
	return s
}

// prefix returns the first max characters of s.
func prefix(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// ruleGroups lowers `@groups(...) for REL: ...`: its three parameters,
// each once (threshold and rules numbers, sum a string), and its groups of
// rule ordinals; datalog.Validate checks their ranges.
func (l *lowerer) ruleGroups(g *gGroups) {
	rg := datalog.RuleGroups{Pred: g.For, Pos: pos(g.Pos)}
	if strings.HasPrefix(g.For, `"`) {
		rg.Pred = unquote(g.For)
	}
	set := map[string]bool{}
	for _, p := range g.Params {
		if set[p.Name] {
			l.errorf(p.Pos, "@groups: parameter %s set twice", p.Name)
			continue
		}
		set[p.Name] = true
		if str := strings.HasPrefix(p.Value, `"`); p.Name == "sum" && !str {
			l.errorf(p.Pos, "@groups: sum must be a string of 16 hexadecimal digits, not %s", p.Value)
			continue
		} else if str && (p.Name == "threshold" || p.Name == "rules") {
			l.errorf(p.Pos, "@groups: %s must be a number, not %s", p.Name, p.Value)
			continue
		}
		switch p.Name {
		case "sum":
			rg.Sum = unquote(p.Value)
		case "threshold":
			v, err := strconv.ParseFloat(p.Value, 64)
			if err != nil {
				l.errorf(p.Pos, "@groups: threshold %s is out of range", p.Value)
			}
			rg.Threshold = v
		case "rules":
			n, err := strconv.Atoi(p.Value)
			if err != nil || n < 1 {
				l.errorf(p.Pos, "@groups: rules must be a positive integer, not %s", p.Value)
			}
			rg.Rules = n
		default:
			l.errorf(p.Pos, "@groups has no parameter %s (it takes threshold, rules and sum)", p.Name)
		}
	}
	for _, name := range []string{"threshold", "rules", "sum"} {
		if !set[name] {
			l.errorf(g.Pos, "@groups for %s: parameter %s is missing (it takes threshold, rules and sum)", datalog.QuoteName(rg.Pred), name)
		}
	}
	for _, grp := range g.Groups {
		ords := make([]int32, 0, len(grp.Rules))
		for _, r := range grp.Rules {
			n, err := strconv.ParseInt(r, 10, 32)
			if err != nil {
				l.errorf(grp.Pos, "@groups: %s is not a rule number (an integer from 1)", r)
				continue
			}
			ords = append(ords, int32(n))
		}
		rg.Groups = append(rg.Groups, ords)
	}
	l.prog.RuleGroups = append(l.prog.RuleGroups, rg)
}
