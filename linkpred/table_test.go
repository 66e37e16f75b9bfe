package linkpred

import (
	"strings"
	"testing"
)

func TestWriteTable(t *testing.T) {
	all := Summary{MRR: 0.5, Hits1: 0.25, Hits3: 0.75, Hits10: 1}
	m := Metrics{Summary: all, Head: all, Tail: Summary{MRR: 1, Hits1: 1, Hits3: 1, Hits10: 1}}
	rep := &Report{Queries: 4, HeadQueries: 2, TailQueries: 2, Optimistic: m, Pessimistic: m, Expected: m}
	rep.Expected.Summary.MRR = 0.125
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "4 queries (2 head, 2 tail), filtered ranking\n\n" +
		"        optimistic                       pessimistic                       expected                     \n" +
		"               MRR   H@10    H@3    H@1          MRR   H@10    H@3    H@1       MRR   H@10    H@3    H@1\n" +
		"   all       0.500  1.000  0.750  0.250        0.500  1.000  0.750  0.250     0.125  1.000  0.750  0.250\n" +
		"  head       0.500  1.000  0.750  0.250        0.500  1.000  0.750  0.250     0.500  1.000  0.750  0.250\n" +
		"  tail       1.000  1.000  1.000  1.000        1.000  1.000  1.000  1.000     1.000  1.000  1.000  1.000\n"
	if b.String() != want {
		t.Errorf("WriteTable:\n%s\nwant:\n%s", b.String(), want)
	}
}
