package tsv

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "a\tb": `a\tb`, "a\nb\r": `a\nb\r`, `a\b`: `a\\b`, "": "",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
