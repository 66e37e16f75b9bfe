package lineerr

import (
	"errors"
	"fmt"
	"testing"
)

var errorTests = []struct {
	e    Error
	want string
}{
	{Error{File: "g.tsv", Line: 3, Reason: "empty head"}, "g.tsv:3: empty head"},
	{Error{File: "r.txt", Line: 12, Col: 7, Reason: "expected a number"}, "r.txt:12:7: expected a number"},
	{Error{File: "r.txt", Line: 1, Col: 1, Reason: "x"}, "r.txt:1:1: x"},
	{Error{File: "r.txt", Line: 1, Col: -1, Reason: "x"}, "r.txt:1: x"},
	{Error{File: "", Line: 0, Reason: ""}, ":0: "},
	{Error{File: "a:b.txt", Line: 1234567, Col: 89, Reason: "a: b"}, "a:b.txt:1234567:89: a: b"},
}

func TestError(t *testing.T) {
	for _, tt := range errorTests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", tt.e, got, tt.want)
		}
		if got := (&tt.e).Error(); got != tt.want {
			t.Errorf("(&%+v).Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// errors.As finds an Error kept by value with a value target, and one kept
// by pointer with a pointer target.
func TestAs(t *testing.T) {
	byValue := fmt.Errorf("load: %w", Error{File: "f", Line: 2, Reason: "bad"})
	if e, ok := errors.AsType[Error](byValue); !ok || e.Line != 2 {
		t.Errorf("errors.AsType[Error](%q) = %+v, %t", byValue, e, ok)
	}
	byPointer := fmt.Errorf("read: %w", &Error{File: "f", Line: 4, Col: 2, Reason: "bad"})
	if e, ok := errors.AsType[*Error](byPointer); !ok || e.Line != 4 {
		t.Errorf("errors.AsType[*Error](%q) = %+v, %t", byPointer, e, ok)
	}
}
