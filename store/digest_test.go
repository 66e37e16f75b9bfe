package store

import (
	"context"
	"math"
	"testing"
)

// namedDerived is a derived fact by name.
type namedDerived struct {
	rel  string
	args []string
	conf float32
}

// digestOf writes facts (in that order) as the derived facts of st, after
// interning the names of intern first (to give them other ids), and
// returns the digest.
func digestOf(t *testing.T, st Store, intern []string, facts []namedDerived) DerivedDigest {
	t.Helper()
	ctx := context.Background()
	id := func(name string) ID {
		i, err := st.Intern(name)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	for _, n := range intern {
		id(n)
	}
	var ds []Derived
	for _, f := range facts {
		d := Derived{Fact: Fact{Rel: id(f.rel)}, Confidence: f.conf, Prov: Provenance{Rule: "r"}}
		for _, a := range f.args {
			d.Fact.Args = append(d.Fact.Args, id(a))
		}
		ds = append(ds, d)
	}
	if err := st.ReplaceDerived(ctx, ds); err != nil {
		t.Fatal(err)
	}
	dg, err := DigestDerived(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	return dg
}

// The digests depend on the derived facts by name and their confidences to
// 6 decimals only: not on ids, the order of writing or the kind of store;
// a fact more, less or changed changes both, a confidence changed by more
// than 1e-6 the second.
func TestDigestDerived(t *testing.T) {
	facts := []namedDerived{
		{"likes", []string{"ann", "bob"}, 0.5},
		{"likes", []string{"bob", "ann"}, 0.25},
		{"likes", []string{"ann", "bob", "cy"}, 1},
		{"knows", []string{"cy", "ann"}, 0.125},
		{"ab", []string{"cd", "e"}, 0.75}, // not the same encoding as "ab"("c", "de")
	}
	reversed := func(fs []namedDerived) []namedDerived {
		out := make([]namedDerived, len(fs))
		for i, f := range fs {
			out[len(fs)-1-i] = f
		}
		return out
	}
	with := func(i int, f namedDerived) []namedDerived {
		out := append([]namedDerived(nil), facts...)
		out[i] = f
		return out
	}
	want := digestOf(t, NewMemory(), nil, facts)
	if want.Facts != len(facts) || len(want.Digest) != len("sha256:")+64 || want.Digest == want.ConfidenceDigest {
		t.Fatalf("digest %+v", want)
	}
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	if got := digestOf(t, db, []string{"zed", "cy", "knows", "bob"}, reversed(facts)); got != want {
		t.Errorf("the same facts in another store, order and ids: %+v, want %+v", got, want)
	}
	near := math.Nextafter32(0.5, 1) // 6e-8 above
	if got := digestOf(t, NewMemory(), nil, with(0, namedDerived{"likes", []string{"ann", "bob"}, near})); got != want {
		t.Errorf("a confidence 6e-8 off: %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		name      string
		facts     []namedDerived
		sameFacts bool
	}{
		{"a fact less", facts[1:], false},
		{"a fact more", append(append([]namedDerived(nil), facts...), namedDerived{"knows", []string{"ann", "cy"}, 0.5}), false},
		{"an argument changed", with(3, namedDerived{"knows", []string{"cy", "bob"}, 0.125}), false},
		{"a relation changed", with(3, namedDerived{"likes", []string{"cy", "ann"}, 0.125}), false},
		{"names split elsewhere", with(4, namedDerived{"ab", []string{"c", "de"}, 0.75}), false},
		{"a confidence changed by 2e-6", with(0, namedDerived{"likes", []string{"ann", "bob"}, 0.500002}), true},
	} {
		got := digestOf(t, NewMemory(), nil, c.facts)
		if (got.Digest == want.Digest) != c.sameFacts || got.ConfidenceDigest == want.ConfidenceDigest {
			t.Errorf("%s: %+v, against %+v", c.name, got, want)
		}
	}
}
