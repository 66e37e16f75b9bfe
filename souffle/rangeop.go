package souffle

import (
	"math"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// range(A, B[, S]) with constant bounds: the values A, A+S, ... up to B
// excluded (S is 1 when A < B, else -1), as the facts of a relation of
// their own. `V = range(...)` (or `range(...) = V`) in a clause becomes
// an atom over it (rangehoist.go makes every call such an equality;
// rangevar.go reads the calls whose bounds are not constants).

// maxRange bounds the values of one range.
const maxRange = 1 << 20

// ranges rewrites the range equalities of a clause (its tokens ts and
// their translations texts).
func (r *reader) ranges(ts []token, texts []string) error {
	for k := 0; k+1 < len(ts); k++ {
		if ts[k].kind != tIdent || ts[k].text != "range" || ts[k+1].text != "(" {
			continue
		}
		m := matching(ts, k+1)
		if m >= len(ts) {
			continue
		}
		v := assignedRange(ts, k, m) // the variable assigned
		bounds, ok := constants(ts[k+2 : m])
		if n := arguments(ts[k+2 : m]); v >= 0 && !ok && (n == 2 || n == 3) {
			r.variableRange(ts, texts, k, m, v, n)
			k = max(m, v)
			continue
		}
		if v < 0 || !ok || len(bounds) < 2 || len(bounds) > 3 {
			return errAt(ts[k].at, "range takes two or three numbers (range(A, B[, S])), not %d arguments", arguments(ts[k+2:m]))
		}
		name, err := r.rangeRelation(ts[k].at, bounds)
		if err != nil {
			return err
		}
		lo, hi := v, m // V = range(...)
		if v > m {
			lo, hi = k, v // range(...) = V
		}
		texts[lo] = strconv.Quote(name) + "(" + texts[v] + ")"
		for j := lo + 1; j <= hi; j++ {
			texts[j] = ""
		}
		k = hi
	}
	return nil
}

// constants reads comma-separated number constants (with a sign).
func constants(ts []token) ([]string, bool) {
	var out []string
	sign := ""
	for i, t := range ts {
		switch {
		case t.kind == tPunct && t.text == "-" && sign == "":
			sign = "-"
		case t.kind == tNumber:
			n, err := number(t)
			if err != nil {
				return nil, false
			}
			out = append(out, sign+n)
			sign = ""
			if i+1 < len(ts) && ts[i+1].text != "," {
				return nil, false
			}
		case t.kind == tPunct && t.text == ",":
		default:
			return nil, false
		}
	}
	return out, true
}

// rangeRelation returns the relation of the values of range(bounds),
// declaring it and its facts the first time.
func (r *reader) rangeRelation(at pos, bounds []string) (string, error) {
	name := "range(" + strings.Join(bounds, ", ") + ")"
	if _, ok := r.p.Decls[name]; ok {
		return name, nil
	}
	var f [3]float64
	floats := false
	for i, b := range bounds {
		x, err := strconv.ParseFloat(b, 64)
		if err != nil {
			return "", errAt(at, "range: %s is not a number", b)
		}
		f[i] = x
		floats = floats || strings.ContainsAny(b, ".eE")
	}
	step := 1.0
	if f[0] > f[1] {
		step = -1
	}
	if len(bounds) == 3 {
		step = f[2]
	}
	kind := "number"
	if floats {
		kind = "float"
	}
	d := &Decl{Name: name, Cols: []Col{{Name: "x", Type: kind}}, At: at}
	r.p.Decls[name] = d
	dp := datalog.Pos{File: at.file, Line: at.line, Col: at.col}
	n := 0
	for i := 0; step != 0; i++ {
		x := f[0] + float64(i)*step
		if step > 0 && x >= f[1] || step < 0 && x <= f[1] {
			break
		}
		if n++; n > maxRange {
			return "", errAt(at, "range: more than %d values", maxRange)
		}
		text := strconv.FormatFloat(x, 'f', -1, 64)
		if !floats {
			text = strconv.FormatInt(int64(math.Round(x)), 10)
		}
		val, _ := datalog.CanonicalNumber(text)
		r.p.rangeFacts = append(r.p.rangeFacts, datalog.Fact{Weight: 1, Pos: dp,
			Atom: datalog.Atom{Pred: name, Pos: dp, Args: []datalog.Term{{Kind: datalog.Number, Value: val, Pos: dp}}}})
	}
	if step == 0 {
		return "", errAt(at, "range: a step of 0")
	}
	return name, nil
}
