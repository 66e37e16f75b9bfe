package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
)

// TestWriteAnswers: the table and TSV are written as fmt wrote them (the
// padding counts runes), and a cancelled context stops the printing with
// its error before anything is written.
func TestWriteAnswers(t *testing.T) {
	vars := []string{"X", "Yvalue"}
	answers := []reasoner.Answer{
		{Values: []string{"ärger", "b"}, Confidence: 1},
		{Values: []string{"a", "longer value"}, Confidence: 0.123456},
		{Values: []string{"bb", ""}, Confidence: 1e-5},
	}
	var want strings.Builder
	widths := []int{len("ärger"), len("longer value")}
	for i, v := range vars {
		fmt.Fprintf(&want, "%-*s  ", widths[i], v)
	}
	want.WriteString("confidence\n")
	for _, a := range answers {
		for i, v := range a.Values {
			fmt.Fprintf(&want, "%-*s  ", widths[i], v)
		}
		want.WriteString(FormatConfidence(a.Confidence) + "\n")
	}
	var b bytes.Buffer
	if err := WriteAnswers(context.Background(), &b, "table", vars, answers); err != nil || b.String() != want.String() {
		t.Errorf("table (%v):\n%q\nwant\n%q", err, b.String(), want.String())
	}
	b.Reset()
	wantTSV := "X\tYvalue\tconfidence\närger\tb\t1\na\tlonger value\t0.123456\nbb\t\t1e-05\n"
	if err := WriteAnswers(context.Background(), &b, "tsv", vars, answers); err != nil || b.String() != wantTSV {
		t.Errorf("tsv (%v):\n%q\nwant\n%q", err, b.String(), wantTSV)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.Reset()
	if err := WriteAnswers(ctx, &b, "table", vars, answers); !errors.Is(err, context.Canceled) || b.Len() != 0 {
		t.Errorf("cancelled: %v, wrote %q", err, b.String())
	}
	for _, c := range []struct {
		vars    []string
		answers []reasoner.Answer
		format  string
		want    string
	}{
		{nil, nil, "table", "false\n"},
		{nil, answers[1:2], "tsv", "true 0.1235\n"},
		{vars, nil, "table", "no answers\n"},
		{vars, nil, "tsv", "X\tYvalue\tconfidence\n"},
	} {
		b.Reset()
		if err := WriteAnswers(context.Background(), &b, c.format, c.vars, c.answers); err != nil || b.String() != c.want {
			t.Errorf("%v %d answers %s: %q (%v), want %q", c.vars, len(c.answers), c.format, b.String(), err, c.want)
		}
	}
}

// failWriter fails every write after the first ok ones.
type failWriter struct{ ok int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.ok == 0 {
		return 0, errors.New("closed pipe")
	}
	w.ok--
	return len(p), nil
}

// TestAnswerStream: each format's header, rows and footer, and a failed
// write reported by Write and Close.
func TestAnswerStream(t *testing.T) {
	answers := []reasoner.Answer{{Values: []string{"a", "b"}, Confidence: 0.5}, {Values: []string{"c", "d"}, Confidence: 0.123456}}
	vars := []string{"X", "Y"}
	for _, c := range []struct {
		format string
		vars   []string
		n      int
		want   string
	}{
		{"table", vars, 2, "X  Y  confidence\na  b  0.5\nc  d  0.1235\n"},
		{"tsv", vars, 2, "X\tY\tconfidence\na\tb\t0.5\nc\td\t0.123456\n"},
		{"json", vars, 2, "[\n  {\"X\":\"a\",\"Y\":\"b\",\"confidence\":0.5},\n  {\"X\":\"c\",\"Y\":\"d\",\"confidence\":0.123456}\n]\n"},
		{"json", vars, 0, "[\n  \n]\n"},
		{"table", vars, 0, "X  Y  confidence\nno answers\n"},
		{"tsv", vars, 0, "X\tY\tconfidence\n"},
		{"table", nil, 0, "false\n"},
		{"table", nil, 1, "true 0.5\n"},
	} {
		var b bytes.Buffer
		s := NewAnswerStream(&b, c.format, c.vars)
		for _, a := range answers[:c.n] {
			if c.vars == nil {
				a.Values = nil
			}
			if !s.Write(a) {
				t.Errorf("%s: Write failed", c.format)
			}
		}
		if err := s.Close(); err != nil || b.String() != c.want || s.Count() != c.n {
			t.Errorf("%s %v %d answers: %q (%v, count %d), want %q", c.format, c.vars, c.n, b.String(), err, s.Count(), c.want)
		}
	}
	s := NewAnswerStream(&failWriter{}, "tsv", vars)
	big := reasoner.Answer{Values: []string{strings.Repeat("x", 5000), "y"}}
	if s.Write(big) {
		t.Error("Write after a failed write of the buffer: true, want false")
	}
	if err := s.Close(); err == nil {
		t.Error("Close after a failed write: nil error")
	}
}

// TestWriteProof: a derived fact with its rule and position, a negated
// literal over the proof of its fact, and base facts.
func TestWriteProof(t *testing.T) {
	p := &reasoner.Proof{Fact: "wife(a, b)", Confidence: 0.45, Rule: "0.9 :: wife(X, Y) :- husband(Y, X), not divorced(X).", Children: []*reasoner.Proof{
		{Fact: "husband(b, a)", Confidence: 1, Base: true},
		{Fact: "not divorced(a)", Confidence: 0.5, Negated: true, Children: []*reasoner.Proof{{Fact: "divorced(a)", Confidence: 0.5, Base: true}}},
	}}
	p.Pos.File, p.Pos.Line = "f.dl", 3
	want := "wife(a, b)  [0.45]\n" +
		"  by 0.9 :: wife(X, Y) :- husband(Y, X), not divorced(X).  (f.dl:3)\n" +
		"  ├─ husband(b, a)  [1]  base fact\n" +
		"  └─ not divorced(a)  [0.5]  = 1 - 0.5\n" +
		"       └─ divorced(a)  [0.5]  base fact\n"
	var b strings.Builder
	if err := WriteProof(&b, p); err != nil || b.String() != want {
		t.Errorf("WriteProof (%v):\n%s\nwant\n%s", err, b.String(), want)
	}
}

// TestWriteChanges: added, removed and re-weighted facts, the limit and
// the count of those not listed.
func TestWriteChanges(t *testing.T) {
	ch := maintain.Change{Added: 2, Removed: 1, Reweighted: 1, Facts: []maintain.ChangedFact{
		{Pred: "wife", Args: []string{"Alice", "bob"}, New: 0.9},
		{Pred: "wife", Args: []string{"carol", "dan"}, Old: 0.5},
		{Pred: "knows", Args: []string{"a", "b"}, Old: 0.25, New: 0.75},
		{Pred: "knows", Args: []string{"b", "c"}, New: 1},
	}}
	if got, want := ChangeCounts(ch), "+2 −1 ~1"; got != want {
		t.Errorf("ChangeCounts = %q, want %q", got, want)
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "  ... and 4 more\n"},
		{3, "  + wife(\"Alice\", bob)  0.9\n  − wife(carol, dan)  0.5\n  ~ knows(a, b)  0.25 → 0.75\n  ... and 1 more\n"},
		{4, "  + wife(\"Alice\", bob)  0.9\n  − wife(carol, dan)  0.5\n  ~ knows(a, b)  0.25 → 0.75\n  + knows(b, c)  1\n"},
		{10, "  + wife(\"Alice\", bob)  0.9\n  − wife(carol, dan)  0.5\n  ~ knows(a, b)  0.25 → 0.75\n  + knows(b, c)  1\n"},
	} {
		var b strings.Builder
		if err := WriteChanges(&b, ch, c.n); err != nil || b.String() != c.want {
			t.Errorf("WriteChanges(%d) (%v):\n%q\nwant\n%q", c.n, err, b.String(), c.want)
		}
	}
}

func TestUpdateSummary(t *testing.T) {
	ch := maintain.Change{Added: 2, Removed: 1, Rounds: 3}
	for _, c := range []struct {
		ch      maintain.Change
		changed bool
		took    time.Duration
		want    string
	}{
		{ch, true, 12345 * time.Microsecond, "+2 −1 ~0 derived facts in 12 ms (incremental, 3 rounds)"},
		{maintain.Change{Added: 5, Full: true}, true, 12345 * time.Millisecond, "+5 −0 ~0 derived facts in 12.3s (recomputed, cheaper than an update)"},
		{maintain.Change{}, false, 9999 * time.Millisecond, "+0 −0 ~0 derived facts in 9999 ms (nothing to update)"},
		{maintain.Change{}, false, 10 * time.Second, "+0 −0 ~0 derived facts in 10s (nothing to update)"},
	} {
		if got := UpdateSummary(c.ch, c.changed, c.took); got != c.want {
			t.Errorf("UpdateSummary(%+v, %v, %s) = %q, want %q", c.ch, c.changed, c.took, got, c.want)
		}
	}
}

func TestWriteDerived(t *testing.T) {
	var b strings.Builder
	if err := WriteDerived(&b, map[string]int{"wife": 42, "has part": 7, "a": 123456789}); err != nil {
		t.Fatal(err)
	}
	want := "  a          123456789\n  \"has part\"         7\n  wife              42\n"
	if b.String() != want {
		t.Errorf("WriteDerived:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := WriteDerived(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("nothing derived: %v, wrote %q", err, b.String())
	}
}

func TestProgressText(t *testing.T) {
	p := reasoner.Progress{Phase: reasoner.PhaseDerive, Rounds: 3, Facts: 1200, Joins: 7, Memory: 40 << 20, Elapsed: 2400 * time.Millisecond}
	if got, want := ProgressText(p), "round 3, 1200 facts derived, 40 MB in use, 2s"; got != want {
		t.Errorf("ProgressText(derive) = %q, want %q", got, want)
	}
	if got, want := TraceLine(p), "trace: round 3, 1200 facts derived, 7 joins, 40 MB in use, 2.4s"; got != want {
		t.Errorf("TraceLine = %q, want %q", got, want)
	}
	p.Batches, p.Busy = 1900*time.Millisecond, 3553*time.Millisecond
	if got, want := TraceLine(p), "trace: round 3, 1200 facts derived, 7 joins, 40 MB in use, 2.4s, batches 1.9s at 1.87 cores"; got != want {
		t.Errorf("TraceLine = %q, want %q", got, want)
	}
	p = reasoner.Progress{Phase: reasoner.PhaseWrite, Written: 800, Total: 1200, Elapsed: 3 * time.Second}
	if got, want := ProgressText(p), "storing 800/1200 facts, 3s"; got != want {
		t.Errorf("ProgressText(write) = %q, want %q", got, want)
	}
}

func TestCatchupTimes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := maintain.CatchupResult{Start: start, Resumed: start.Add(12 * time.Millisecond), Applied: start.Add(15 * time.Millisecond)}
	if got, want := CatchupTimes(res, start.Add(20*time.Second)), "read the stored derived facts in 12 ms, updated in 3 ms, stored in 20s"; got != want {
		t.Errorf("CatchupTimes = %q, want %q", got, want)
	}
	res.FromImage, res.Stored = true, start.Add(19*time.Second)
	if got, want := CatchupTimes(res, start.Add(20*time.Second)), "read the materialisation image in 12 ms, updated in 3 ms, stored in 19s, image written in 1000 ms"; got != want {
		t.Errorf("CatchupTimes from an image = %q, want %q", got, want)
	}
}
