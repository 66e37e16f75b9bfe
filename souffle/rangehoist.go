package souffle

import "strconv"

// range(A, B[, S]) is a functor of many results: a clause that calls it
// holds once for each of its values. Anywhere but `V = range(...)` (or
// `range(...) = V`), which ranges() and variableRange read, a call is
// replaced by a new variable, and `V = range(...)` joins the innermost
// conjunction around it: the aggregate's body ({...}) the call is in,
// else the clause's body (the clause becomes a rule if it was a fact; a
// body with a disjunction is put in parentheses first, so that the value
// is taken in each of its branches). Calls nested in the bounds of
// another are taken out first.

// assignedRange returns the index of the variable a range call equates
// (range at k, its ")" at m): V = range(...) or range(...) = V; -1 when
// it is no such equality.
func assignedRange(ts []token, k, m int) int {
	switch {
	case k >= 2 && ts[k-1].text == "=" && ts[k-2].kind == tIdent:
		return k - 2
	case m+2 < len(ts) && ts[m+1].text == "=" && ts[m+2].kind == tIdent:
		return m + 2
	}
	return -1
}

// isRangeCall reports whether ts[k] starts a call of range: its ")" is m.
func isRangeCall(ts []token, k int) (m int, ok bool) {
	if ts[k].kind != tIdent || ts[k].text != "range" || k+1 >= len(ts) || ts[k+1].text != "(" {
		return 0, false
	}
	m = matching(ts, k+1)
	return m, m < len(ts)
}

// hoistRanges rewrites the tokens ts of a clause (its final "." included)
// so that every call of range is the right or left side of an equality
// with a variable.
func hoistRanges(ts []token) []token {
	for {
		k, m := innermostRange(ts)
		if k < 0 {
			return ts
		}
		ts = hoistRange(ts, k, m, freshVar(ts, "_range"))
	}
}

// innermostRange returns the first call of range (at k, its ")" at m)
// that is no equality with a variable and whose bounds call no range;
// k is -1 when there is none.
func innermostRange(ts []token) (k, m int) {
	for k := range ts {
		m, ok := isRangeCall(ts, k)
		if !ok || assignedRange(ts, k, m) >= 0 {
			continue
		}
		inner := false
		for j := k + 2; j < m && !inner; j++ {
			_, inner = isRangeCall(ts, j)
		}
		if !inner {
			return k, m
		}
	}
	return -1, 0
}

// freshVar returns a variable name, prefix followed by a number, that no
// identifier of ts is.
func freshVar(ts []token, prefix string) string {
	used := map[string]bool{}
	for _, t := range ts {
		if t.kind == tIdent {
			used[t.text] = true
		}
	}
	for i := 1; ; i++ {
		if v := prefix + strconv.Itoa(i); !used[v] {
			return v
		}
	}
}

// hoistRange replaces the call ts[k..m] by the variable v and adds the
// equality v = call to the conjunction around it.
func hoistRange(ts []token, k, m int, v string) []token {
	at := ts[k].at
	punct := func(s string) token { return token{kind: tPunct, text: s, at: at} }
	call := append([]token{{kind: tIdent, text: v, at: at}, punct("=")}, ts[k:m+1]...)
	// The innermost aggregate body around the call, if any.
	open, depth := -1, 0
	var stack []int
	for j := 0; j < k; j++ {
		switch {
		case isOpen(ts[j]):
			stack = append(stack, j)
		case isClose(ts[j]) && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if ts[stack[i]].text == "{" {
			open = stack[i]
			break
		}
	}
	var out []token
	add := func(parts ...[]token) {
		for _, p := range parts {
			out = append(out, p...)
		}
	}
	replaced := func(lo, hi int) []token { // ts[lo:hi] with the call replaced
		var r []token
		for j := lo; j < hi; j++ {
			switch {
			case j == k:
				r = append(r, token{kind: tIdent, text: v, at: at})
			case j > k && j <= m:
			default:
				r = append(r, ts[j])
			}
		}
		return r
	}
	if open >= 0 {
		end := open + 1
		for depth = 1; end < len(ts) && depth > 0; end++ {
			switch {
			case isOpen(ts[end]):
				depth++
			case isClose(ts[end]):
				depth--
			}
		}
		end-- // the "}"
		add(replaced(0, end), []token{punct(",")}, call, replaced(end, len(ts)))
		return out
	}
	neck := lastOutside(ts, ":-")
	disjunction := neck >= 0 && lastOutside(ts[neck+1:], ";") >= 0
	last := len(ts) - 1 // the final "."
	switch {
	case neck < 0:
		add(replaced(0, last), []token{punct(":-")}, call, ts[last:])
	case disjunction:
		add(replaced(0, neck+1), []token{punct("(")}, replaced(neck+1, last), []token{punct(")"), punct(",")}, call, ts[last:])
	default:
		add(replaced(0, last), []token{punct(",")}, call, ts[last:])
	}
	return out
}
