package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

// Dump renders the whole visible state of s — dictionary, base facts,
// counts, splits, derived facts, their record and the change log — as
// text, for comparing stores.
func Dump(t testing.TB, s store.Store) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(dumpBase(t, s))
	ms, err := s.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	if ms.Program != nil {
		fmt.Fprintf(&sb, "record %q overflow %v\n", ms.Program, ms.Overflow)
	}
	for _, c := range ms.Changes {
		fmt.Fprintf(&sb, "change %v %v\n", c.Fact, c.Added)
	}
	rels, err := s.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		fmt.Fprintf(&sb, "stats %+v\n", r)
		for d, err := range s.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "derived %v %g %q %v\n", d.Fact, d.Confidence, d.Prov.Rule, d.Prov.Body)
		}
	}
	return sb.String()
}

func dumpBase(t testing.TB, s store.Store) string {
	t.Helper()
	var sb strings.Builder
	n, err := s.NumSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name, err := s.Name(store.ID(i))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "sym %d %q\n", i, name)
	}
	rels, err := s.Relations()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		if r.Base == 0 {
			continue
		}
		c, err := s.Count(r.Rel)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "rel %d %q base %d count %d\n", r.Rel, r.Name, r.Base, c)
		for f, err := range s.Scan(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "fact %v\n", f)
		}
	}
	splits, err := s.Splits()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range splits {
		fmt.Fprintf(&sb, "split %q\n", name)
		for tr, err := range s.Split(name) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "  %v\n", tr)
		}
	}
	return sb.String()
}

// diff shows the first differing line of two dumps.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s\n(%d vs %d lines)", i+1, x, y, len(al), len(bl))
		}
	}
	return "(equal)"
}
