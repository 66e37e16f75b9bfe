package ansi

import "testing"

func TestColorize(t *testing.T) {
	in := "drumql: a.dl:1:2: error: unsafe head variable Z\np(Z) :- q(X).\n  ^\nb.dl:3:1: warning: duplicate rule\nhint: pass the file with --rules\n"
	want := "drumql: a.dl:1:2: \x1b[1;31merror:\x1b[0m unsafe head variable Z\np(Z) :- q(X).\n  \x1b[1;32m^\x1b[0m\nb.dl:3:1: \x1b[1;33mwarning:\x1b[0m duplicate rule\n\x1b[36mhint: pass the file with --rules\x1b[0m\n"
	if got := Colorize(in); got != want {
		t.Errorf("Colorize:\n%q\nwant\n%q", got, want)
	}
	plain := "drumql: unknown predicate wief; did you mean wife?\n"
	if got := Colorize(plain); got != plain {
		t.Errorf("Colorize changed a message without markers: %q", got)
	}
}
