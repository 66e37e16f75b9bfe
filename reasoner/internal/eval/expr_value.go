package eval

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
)

// Values and arithmetic: numbers read from names, integer and float
// operators, comparisons (see expr.go for the semantics).

// leafValue is the value of a leaf term under the current bindings.
func (w *Worker) leafValue(t Term) value {
	switch t.V {
	case SlotConst:
		return value{id: t.C, hasID: true}
	case SlotNumber:
		v := floatValue(t.F)
		v.id, v.hasID = t.C, true
		if !v.isInt {
			// keep the exact reading of big integers
			v, _ = numberOfName(w.E.Syms.mustName(t.C))
			v.id, v.hasID = t.C, true
		}
		return v
	}
	return value{id: w.vals[t.V], hasID: true}
}

// number fills v's number fields; it reports whether v is a number.
func (w *Worker) numberOf(v *value) bool {
	if v.numKnown {
		return v.num
	}
	id := v.id
	if f, ok := w.E.Syms.Number(id); !ok {
		v.numKnown = true
		return false
	} else if f == math.Trunc(f) && math.Abs(f) < maxExactInt {
		*v = intValue(int64(f))
	} else {
		*v, _ = numberOfName(w.E.Syms.mustName(id))
	}
	v.id, v.hasID = id, true
	return true
}

// nameOf returns the name of v.
func (w *Worker) nameOf(v *value) string {
	switch {
	case v.hasID:
		return w.E.Syms.mustName(v.id)
	case v.named:
		return v.name
	}
	return v.canonical()
}

// intern returns v's symbol id, interning a computed value.
func (w *Worker) intern(v *value) (uint32, bool) {
	if v.hasID {
		return v.id, true
	}
	id, err := w.E.Syms.computed(w.nameOf(v))
	if err != nil {
		w.fail(err.Error())
		return 0, false
	}
	return id, true
}

// eval evaluates x under the current bindings. It returns the value, the
// confidence of the aggregates it used (1 without), and false when it has
// no value (an aggregate of nothing) or failed (w.err set).
func (w *Worker) eval(x *cexpr) (value, float64, bool) {
	if x.op == "" {
		return w.leafValue(x.leaf), 1, true
	}
	if x.agg != nil {
		r := w.aggregate(x)
		return r.v, r.conf, r.ok && w.err == nil
	}
	conf := 1.0
	var buf [3]value
	args := buf[:0]
	if len(x.args) > len(buf) {
		args = make([]value, 0, len(x.args))
	}
	args = args[:len(x.args)]
	for i, a := range x.args {
		v, c, ok := w.eval(a)
		if !ok {
			return value{}, 0, false
		}
		args[i], conf = v, conf*c
	}
	v, ok := w.apply(x, args)
	return v, conf, ok
}

// numbers checks that every argument is a number, reporting the first
// that is not.
func (w *Worker) numbers(x *cexpr, args []value) bool {
	for i := range args {
		if !w.numberOf(&args[i]) {
			w.errorIn(x, "%s is not a number", valueTerm(w.nameOf(&args[i])))
			return false
		}
	}
	return true
}

// finite returns f as a value, or fails on NaN and infinities.
func (w *Worker) finite(x *cexpr, f float64) (value, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.errorIn(x, "the result is not a finite number")
		return value{}, false
	}
	return floatValue(f), true
}

func (w *Worker) apply(x *cexpr, a []value) (value, bool) {
	switch x.op {
	case datalog.OpAdd:
		if !w.numberOf(&a[0]) || !w.numberOf(&a[1]) {
			// + of a name that is not a number concatenates (as
			// Soufflé's + of symbols)
			return w.concat(a)
		}
		return w.arith(x, a[0], a[1])
	case datalog.OpSub, datalog.OpMul, datalog.OpDiv, datalog.OpMod, datalog.OpPow, "fdiv", "min", "max":
		if !w.numbers(x, a) {
			return value{}, false
		}
		v, ok := w.arith(x, a[0], a[1])
		for _, b := range a[2:] { // min and max of more than two
			if !ok {
				break
			}
			v, ok = w.arith(x, v, b)
		}
		return v, ok
	case datalog.OpNeg, "abs":
		if !w.numbers(x, a) {
			return value{}, false
		}
		v := a[0]
		if x.op == "abs" && !(v.isInt && v.i < 0 || !v.isInt && v.f < 0) {
			return v, true
		}
		if v.isInt {
			if v.i == math.MinInt64 {
				w.errorIn(x, "integer overflow")
				return value{}, false
			}
			return intValue(-v.i), true
		}
		return floatValue(-v.f), true
	case "cat":
		return w.concat(a)
	case "strlen":
		return intValue(int64(utf8.RuneCountInString(w.nameOf(&a[0])))), true
	case "substr":
		if !w.numbers(x, a[1:]) {
			return value{}, false
		}
		if !a[1].isInt || !a[2].isInt || a[1].i < 0 || a[2].i < 0 {
			w.errorIn(x, "substr takes a start and a length that are integers >= 0")
			return value{}, false
		}
		name := w.nameOf(&a[0])
		if ascii(name) { // characters are bytes: no copy
			lo := min(a[1].i, int64(len(name)))
			hi := lo + min(a[2].i, int64(len(name))-lo)
			return nameValue(name[lo:hi]), true
		}
		s := []rune(name)
		lo := min(a[1].i, int64(len(s)))
		hi := lo + min(a[2].i, int64(len(s))-lo)
		return nameValue(string(s[lo:hi])), true
	case "to_number":
		if !w.numberOf(&a[0]) {
			w.errorIn(x, "%s is not a number", valueTerm(w.nameOf(&a[0])))
			return value{}, false
		}
		// the number, named canonically ("007" is 7)
		v := a[0]
		v.hasID, v.named = false, false
		return v, true
	case "to_string":
		return a[0], true
	case "autoinc":
		return intValue(w.E.autoinc.Add(1) - 1), true
	case "ord":
		if w.numberOf(&a[0]) {
			return a[0], true
		}
		id, ok := w.intern(&a[0])
		return intValue(int64(id)), ok
	}
	if _, ok := datalog.BitFunctions(x.op, 0, 0); ok {
		if !w.numbers(x, a) {
			return value{}, false
		}
		var ij [2]int64
		for k := range a {
			if !a[k].isInt {
				w.errorIn(x, "%s takes integers, not %s", x.op, valueTerm(w.nameOf(&a[k])))
				return value{}, false
			}
			ij[k] = a[k].i
		}
		r, _ := datalog.BitFunctions(x.op, ij[0], ij[1])
		return intValue(r), true
	}
	w.errorIn(x, "unknown function %s", x.op)
	return value{}, false
}

// arith applies a binary numeric operator: integer arithmetic when both
// operands are integers, float64 otherwise (see the package comment).
func (w *Worker) arith(x *cexpr, a, b value) (value, bool) {
	if x.op == "fdiv" {
		if b.f == 0 {
			w.errorIn(x, "division by zero")
			return value{}, false
		}
		return w.finite(x, a.f/b.f)
	}
	if a.isInt && b.isInt {
		i, j := a.i, b.i
		var r int64
		overflow := false
		switch x.op {
		case datalog.OpAdd:
			r = i + j
			overflow = (r > i) != (j > 0)
		case datalog.OpSub:
			r = i - j
			overflow = (r < i) != (j > 0)
		case datalog.OpMul:
			if i != 0 && j != 0 {
				r = i * j
				overflow = r/j != i || (i == -1 && j == math.MinInt64) || (j == -1 && i == math.MinInt64)
			}
		case datalog.OpDiv, datalog.OpMod:
			if j == 0 {
				w.errorIn(x, "division by zero")
				return value{}, false
			}
			if i == math.MinInt64 && j == -1 {
				if x.op == datalog.OpMod {
					return intValue(0), true
				}
				overflow = true
			} else if x.op == datalog.OpDiv {
				r = i / j
			} else {
				r = i % j
			}
		case datalog.OpPow:
			if j < 0 {
				return w.finite(x, math.Pow(float64(i), float64(j)))
			}
			r, overflow = intPow(i, j)
		case "min":
			r = min(i, j)
		case "max":
			r = max(i, j)
		}
		if overflow {
			w.errorIn(x, "integer overflow")
			return value{}, false
		}
		return intValue(r), true
	}
	f, g := a.f, b.f
	switch x.op {
	case datalog.OpAdd:
		return w.finite(x, f+g)
	case datalog.OpSub:
		return w.finite(x, f-g)
	case datalog.OpMul:
		return w.finite(x, f*g)
	case datalog.OpDiv:
		if g == 0 {
			w.errorIn(x, "division by zero")
			return value{}, false
		}
		return w.finite(x, f/g)
	case datalog.OpMod:
		if g == 0 {
			w.errorIn(x, "division by zero")
			return value{}, false
		}
		return w.finite(x, math.Mod(f, g))
	case datalog.OpPow:
		return w.finite(x, math.Pow(f, g))
	case "min":
		return floatValue(min(f, g)), true
	default: // max
		return floatValue(max(f, g)), true
	}
}

// intPow returns b^e for e >= 0, and whether it overflows int64.
func intPow(b, e int64) (int64, bool) {
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			n := r * b
			if b != 0 && (n/b != r || (r == -1 && b == math.MinInt64)) {
				return 0, true
			}
			r = n
		}
		e >>= 1
		if e > 0 {
			n := b * b
			if b != 0 && n/b != b {
				return 0, true
			}
			b = n
		}
	}
	return r, false
}

// compareValues orders two values as comparisons do: numerically when
// both are numbers, otherwise by name (the same symbol is equal to itself).
func (w *Worker) compareValues(a, b *value) int {
	if a.hasID && b.hasID && a.id == b.id {
		return 0
	}
	if w.numberOf(a) && w.numberOf(b) {
		if a.isInt && b.isInt {
			return cmp.Compare(a.i, b.i)
		}
		return cmp.Compare(a.f, b.f)
	}
	return strings.Compare(w.nameOf(a), w.nameOf(b))
}

// opHolds reports whether op holds of two operands that compare as c.
func opHolds(op datalog.CmpOp, c int) bool {
	switch op {
	case datalog.OpEq:
		return c == 0
	case datalog.OpNe:
		return c != 0
	case datalog.OpLt:
		return c < 0
	case datalog.OpLe:
		return c <= 0
	case datalog.OpGt:
		return c > 0
	default:
		return c >= 0
	}
}

// concat is the name of the values of a one after the other (cat, and +
// of names); beyond Options.MaxString bytes it fails the evaluation with
// an error matching ErrStringTooLong.
func (w *Worker) concat(a []value) (value, bool) {
	n := 0
	for i := range a {
		n += len(w.nameOf(&a[i]))
	}
	if n > w.E.maxStr {
		if w.err == nil {
			where := ""
			if w.rule != nil && w.rule.pos.Line > 0 {
				where = w.rule.pos.String() + ": "
			}
			w.err = &evalError{msg: fmt.Sprintf("%sa concatenation makes a string of %d bytes, longer than the limit of %d", where, n, w.E.maxStr), err: ErrStringTooLong}
		}
		return value{}, false
	}
	var b strings.Builder
	b.Grow(n)
	for i := range a {
		b.WriteString(w.nameOf(&a[i]))
	}
	return nameValue(b.String()), true
}

// ascii reports whether s has only ASCII characters.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
