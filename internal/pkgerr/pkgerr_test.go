package pkgerr

import (
	"context"
	"errors"
	"strings"
	"testing"
)

var errSentinel = errors.New("pkg: sentinel")

type typed struct{ n int }

func (e *typed) Error() string { return "pkg: typed" }

func TestErrorf(t *testing.T) {
	inner := Errorf("pkg: ", "pkg: inner op: %w", errSentinel)
	cases := []struct {
		err  error
		want string
	}{
		{Errorf("pkg: ", "pkg: op: %w", errSentinel), "pkg: op: sentinel"},
		{Errorf("pkg: ", "pkg: outer: %w", inner), "pkg: outer: inner op: sentinel"},
		{Errorf("pkg: ", "pkg: op %s: %w", "x", context.Canceled), "pkg: op x: context canceled"},
		{Errorf("pkg: ", "pkg: op: %w", errors.New("other: failed")), "pkg: op: other: failed"},
		{Errorf("pkg: ", "pkg: %w and %v", errSentinel, errSentinel), "pkg: sentinel and sentinel"},
		{Errorf("pkg: ", "pkg: %d facts: %w", 3, &typed{7}), "pkg: 3 facts: typed"},
		{Errorf("pkg: ", "pkg: op: %w: %w", errSentinel, context.Canceled), "pkg: op: sentinel: context canceled"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("message %q, want %q", got, c.want)
		}
		if n := strings.Count(c.err.Error(), "pkg:"); n != 1 {
			t.Errorf("%q names the package %d times, want once", c.err, n)
		}
	}
	if err := cases[1].err; !errors.Is(err, errSentinel) {
		t.Errorf("errors.Is(%q, sentinel) = false", err)
	}
	if err := cases[6].err; !errors.Is(err, errSentinel) || !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%q, both wrapped errors) = false", err)
	}
	if te, ok := errors.AsType[*typed](cases[5].err); !ok || te.n != 7 {
		t.Errorf("errors.As(%q, *typed) = %v, %v", cases[5].err, te, ok)
	}
}

var newfInner = Newf("pkg: inner op: %w", errSentinel)

// newfTests are Newf's formats and messages: a prefix is the text before
// the first ": " when it holds no verb.
var newfTests = []struct {
	err  error
	want string
}{
	{Newf("pkg: op: %w", errSentinel), "pkg: op: sentinel"},
	{Newf("pkg: outer: %w", newfInner), "pkg: outer: inner op: sentinel"},
	{Newf("pkg: op %s: %w", "x", context.Canceled), "pkg: op x: context canceled"},
	{Newf("pkg: op: %w", errors.New("other: failed")), "pkg: op: other: failed"},
	{Newf("pkg: %w and %v", errSentinel, errSentinel), "pkg: sentinel and sentinel"},
	{Newf("other: op: %w", errSentinel), "other: op: pkg: sentinel"},
	{Newf("%s: op: %w", "pkg", errSentinel), "pkg: op: pkg: sentinel"},
	{Newf("op %w", errSentinel), "op pkg: sentinel"},
	{Newf("pkg:op: %w", errSentinel), "pkg:op: pkg: sentinel"},
	{Newf("%w", errSentinel), "pkg: sentinel"},
	{Newf("pkg: "), "pkg: "},
}

func TestNewf(t *testing.T) {
	for _, c := range newfTests {
		if got := c.err.Error(); got != c.want {
			t.Errorf("message %q, want %q", got, c.want)
		}
	}
	for _, i := range []int{0, 1, 4, 5, 6, 7, 8, 9} {
		if err := newfTests[i].err; !errors.Is(err, errSentinel) {
			t.Errorf("errors.Is(%q, sentinel) = false", err)
		}
	}
	if err := newfTests[2].err; !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%q, context.Canceled) = false", err)
	}
}
