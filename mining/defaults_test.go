package mining

import (
	"fmt"
	"testing"

	"github.com/drumql/drumql/miner"
)

func TestDefaults(t *testing.T) {
	d := Defaults()
	if len(d) != 23 || d["len"] != fmt.Sprint(miner.DefaultMaxLen) || d["max_len"] != fmt.Sprint(miner.MaxRuleLen) ||
		d["const_len"] != fmt.Sprint(miner.ConstOptions{}.WithDefaults().Len) {
		t.Errorf("Defaults() = %v", d)
	}
	for _, c := range []struct {
		flag, want string
		ok         bool
	}{
		{"max-rules", fmt.Sprint(miner.ExtractOptions{}.WithDefaults().MaxRules), true},
		{"constant-len", d["const_len"], true},
		{"max-fan-out", fmt.Sprint(miner.DefaultMaxFanOut), true},
		{"min-score", "", false},
		{"min-support", "", false},
		{"out", "", false},
	} {
		if got, ok := DefaultOf(c.flag); got != c.want || ok != c.ok {
			t.Errorf("DefaultOf(%q) = %q, %v; want %q, %v", c.flag, got, ok, c.want, c.ok)
		}
	}
}
