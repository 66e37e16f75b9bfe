package datalog

import "testing"

func TestBitFunctions(t *testing.T) {
	for _, c := range []struct {
		op   string
		a, b int64
		want int64
	}{
		{"band", 12, 10, 8}, {"bor", 12, 10, 14}, {"bxor", 12, 10, 6}, {"bnot", 0, 0, -1},
		{"bshl", 1, 62, 1 << 62}, {"bshl", 1, 64, 0}, {"bshr", -8, 1, -4}, {"bshr", -8, 70, -1},
		{"bshr", 8, 70, 0}, {"bshru", -1, 63, 1}, {"bshru", -1, -1, 0},
		{"land", 2, 3, 1}, {"land", 2, 0, 0}, {"lor", 0, 0, 0}, {"lor", 0, -3, 1},
		{"lxor", 1, 1, 0}, {"lxor", 0, 5, 1}, {"lnot", 0, 0, 1}, {"lnot", 7, 0, 0},
	} {
		if got, ok := BitFunctions(c.op, c.a, c.b); !ok || got != c.want {
			t.Errorf("%s(%d, %d) = %d, %v; want %d", c.op, c.a, c.b, got, ok, c.want)
		}
	}
	if _, ok := BitFunctions("cat", 1, 2); ok {
		t.Error("cat is no bit function")
	}
}
