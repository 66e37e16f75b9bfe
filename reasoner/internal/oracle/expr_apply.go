package oracle

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
)

// oxApply applies operator or function op to the values named args and
// names the result.
func oxApply(op string, args []string) (string, error) {
	switch op {
	case "cat":
		return strings.Join(args, ""), nil
	case "strlen":
		return strconv.Itoa(utf8.RuneCountInString(args[0])), nil
	case "to_string":
		return args[0], nil
	case "ord":
		return "", errors.New("oracle: ord (a symbol table's order) is not modelled")
	case "autoinc":
		return "", errors.New("oracle: autoinc (an evaluation order's counter) is not modelled")
	case "to_number":
		n, ok := oxReadNum(args[0])
		if !ok {
			return "", fmt.Errorf("to_number: %s is not a number", args[0])
		}
		return n.text(), nil
	case "substr":
		return oxSubstr(args)
	}
	if _, ok := datalog.BitFunctions(op, 0, 0); ok {
		var ij [2]int64
		for k, a := range args {
			n, ok := oxReadNum(a)
			if !ok || !n.isInt {
				return "", fmt.Errorf("%s takes integers, not %s", op, a)
			}
			ij[k] = n.i
		}
		r, _ := datalog.BitFunctions(op, ij[0], ij[1])
		return strconv.FormatInt(r, 10), nil
	}
	if op == datalog.OpAdd {
		// + of a name that is not a number concatenates the names
		for _, a := range args {
			if _, ok := oxReadNum(a); !ok {
				return strings.Join(args, ""), nil
			}
		}
	}
	if (op == "min" || op == "max") && len(args) > 2 {
		// min and max of more than two: pairwise, left to right
		r, err := oxApply(op, args[:2])
		if err != nil {
			return "", err
		}
		return oxApply(op, append([]string{r}, args[2:]...))
	}
	nums := make([]oxNum, len(args))
	ints := true
	for k, a := range args {
		n, ok := oxReadNum(a)
		if !ok {
			return "", fmt.Errorf("%s is not a number", a)
		}
		nums[k] = n
		ints = ints && n.isInt
	}
	a := nums[0]
	if len(nums) == 1 {
		switch op {
		case datalog.OpNeg:
			if ints {
				return oxInt(new(big.Int).Neg(big.NewInt(a.i)))
			}
			return oxFloat(-a.f)
		case "abs":
			if ints {
				return oxInt(new(big.Int).Abs(big.NewInt(a.i)))
			}
			return oxFloat(math.Abs(a.f))
		}
		panic("oracle: unknown operator " + op)
	}
	b := nums[1]
	switch op {
	case "min", "max":
		c := oxCmpNum(a, b)
		r := a
		if op == "min" && c > 0 || op == "max" && c < 0 {
			r = b
		}
		if ints {
			return r.text(), nil
		}
		return oxFloat(r.float())
	case "fdiv":
		if b.float() == 0 {
			return "", errors.New("division by zero")
		}
		return oxFloat(a.float() / b.float())
	}
	if ints {
		return oxIntArith(op, a, b)
	}
	x, y := a.float(), b.float()
	switch op {
	case datalog.OpAdd:
		return oxFloat(x + y)
	case datalog.OpSub:
		return oxFloat(x - y)
	case datalog.OpMul:
		return oxFloat(x * y)
	case datalog.OpDiv:
		return oxFloat(x / y)
	case datalog.OpMod:
		return oxFloat(math.Mod(x, y))
	case datalog.OpPow:
		return oxFloat(math.Pow(x, y))
	}
	panic("oracle: unknown operator " + op)
}

// oxSubstr is substr(s, i, n): n characters of s from the i-th.
func oxSubstr(args []string) (string, error) {
	var ns [2]int64
	for k, a := range args[1:] {
		n, ok := oxReadNum(a)
		if !ok || !n.isInt || n.i < 0 {
			return "", fmt.Errorf("substr: %s is not an integer >= 0", a)
		}
		ns[k] = n.i
	}
	rs := []rune(args[0])
	i, n := ns[0], ns[1]
	if i >= int64(len(rs)) {
		return "", nil
	}
	end := int64(len(rs))
	if n < end-i {
		end = i + n
	}
	return string(rs[i:end]), nil
}

// oxIntArith applies the binary operator op to the integers a and b, in
// arbitrary precision (oxInt says when the result leaves 64 bits).
func oxIntArith(op string, a, b oxNum) (string, error) {
	x, y := big.NewInt(a.i), big.NewInt(b.i)
	switch op {
	case datalog.OpAdd:
		return oxInt(x.Add(x, y))
	case datalog.OpSub:
		return oxInt(x.Sub(x, y))
	case datalog.OpMul:
		return oxInt(x.Mul(x, y))
	case datalog.OpDiv, datalog.OpMod:
		if b.i == 0 {
			return "", errors.New("division by zero")
		}
		if op == datalog.OpDiv {
			return oxInt(x.Quo(x, y)) // truncated toward zero
		}
		return oxInt(x.Rem(x, y)) // the sign of the dividend
	case datalog.OpPow:
		if b.i < 0 {
			return oxFloat(math.Pow(float64(a.i), float64(b.i)))
		}
		return oxIntPow(a.i, b.i)
	}
	panic("oracle: unknown operator " + op)
}

// oxIntPow is a^b for integers, b >= 0, exactly.
func oxIntPow(a, b int64) (string, error) {
	switch {
	case b == 0:
		return "1", nil
	case a == 0 || a == 1:
		return strconv.FormatInt(a, 10), nil
	case a == -1 && b%2 == 0:
		return "1", nil
	case a == -1:
		return "-1", nil
	case b > 64: // |a| >= 2
		return "", fmt.Errorf("integer overflow (%d ^ %d)", a, b)
	}
	return oxInt(new(big.Int).Exp(big.NewInt(a), big.NewInt(b), nil))
}

// oxAggregateValue is aggregate op over the targets of its solutions (one
// per solution; none for count). ok is false when it has no value.
func oxAggregateValue(op string, targets []string, count int) (name string, ok bool, err error) {
	sum := func() (string, error) {
		nums := make([]oxNum, len(targets))
		ints := true
		for k, t := range targets {
			n, ok := oxReadNum(t)
			if !ok {
				return "", fmt.Errorf("%s: %s is not a number", op, t)
			}
			nums[k] = n
			ints = ints && n.isInt
		}
		if ints {
			s := new(big.Int)
			for _, n := range nums {
				s.Add(s, big.NewInt(n.i))
			}
			return oxInt(s)
		}
		fs := make([]float64, len(nums))
		for k, n := range nums {
			fs[k] = n.float()
		}
		slices.Sort(fs)
		s := 0.0
		for _, f := range fs {
			s += f
		}
		return oxFloat(s)
	}
	switch op {
	case "count":
		return strconv.Itoa(count), true, nil
	case "sum":
		s, err := sum()
		return s, true, err
	}
	if len(targets) == 0 {
		return "", false, nil
	}
	switch op {
	case "mean":
		s, err := sum()
		if err != nil {
			return "", true, err
		}
		m, err := oxApply("fdiv", []string{s, strconv.Itoa(len(targets))})
		return m, true, err
	case "min", "max":
		nums := make([]oxNum, len(targets))
		numeric := true
		for k, t := range targets {
			nums[k], ok = oxReadNum(t)
			numeric = numeric && ok
		}
		sign := 1
		if op == "max" {
			sign = -1
		}
		best := 0
		for k := range targets {
			var c int
			if numeric {
				c = oxCmpNum(nums[k], nums[best])
			} else {
				c = strings.Compare(targets[k], targets[best])
			}
			if c*sign < 0 {
				best = k
			}
		}
		if numeric {
			return nums[best].text(), true, nil
		}
		return targets[best], true, nil
	}
	panic("oracle: unknown aggregate " + op)
}
