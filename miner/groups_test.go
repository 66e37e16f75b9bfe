package miner

import (
	"reflect"
	"testing"
)

// familiesLoads are the training queries per relation of examples/families
// (cut -f2 train.txt | sort | uniq -c).
var familiesLoads = []HeadLoad{
	{"aunt", 32}, {"brother", 19}, {"daughter", 27}, {"father", 34}, {"husband", 10}, {"mother", 30},
	{"nephew", 26}, {"niece", 33}, {"sister", 16}, {"son", 26}, {"uncle", 31}, {"wife", 9},
}

func TestPartition(t *testing.T) {
	tests := []struct {
		name  string
		loads []HeadLoad
		n     int
		want  []Group
	}{
		{"one group", []HeadLoad{{"b", 1}, {"a", 5}}, 1, []Group{{Heads: []string{"a", "b"}, Queries: 6}}},
		{"zero means one", []HeadLoad{{"b", 1}, {"a", 5}}, 0, []Group{{Heads: []string{"a", "b"}, Queries: 6}}},
		// Worked by hand: 34 father→1, 33 niece→2, 32 aunt→2 (65), 31
		// uncle→1 (65), 30 mother→1 (tie: lowest), 27 daughter→2 (92), 26
		// nephew→2 (118; before son by name), 26 son→1 (121), 19
		// brother→2 (137), 16 sister→1 (137), 10 husband→1 (tie), 9 wife→2.
		{"families in two", familiesLoads, 2, []Group{
			{Heads: []string{"father", "husband", "mother", "sister", "son", "uncle"}, Queries: 147},
			{Heads: []string{"aunt", "brother", "daughter", "nephew", "niece", "wife"}, Queries: 146},
		}},
		{"ties by name", []HeadLoad{{"c", 2}, {"b", 2}, {"a", 2}}, 2, []Group{
			{Heads: []string{"a", "c"}, Queries: 4},
			{Heads: []string{"b"}, Queries: 2},
		}},
		// n above the heads with queries: one group per such head, the
		// head without queries joins the lightest.
		{"more groups than heads", []HeadLoad{{"x", 3}, {"y", 1}, {"z", 0}}, 5, []Group{
			{Heads: []string{"x"}, Queries: 3},
			{Heads: []string{"y", "z"}, Queries: 1},
		}},
		{"no queries at all", []HeadLoad{{"x", 0}, {"y", 0}}, 3, []Group{{Heads: []string{"x", "y"}}}},
		{"duplicate heads counted once", []HeadLoad{{"a", 4}, {"a", 4}, {"b", 1}}, 2, []Group{
			{Heads: []string{"a"}, Queries: 4},
			{Heads: []string{"b"}, Queries: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Partition(tt.loads, tt.n)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Partition(%v, %d) = %v, want %v", tt.loads, tt.n, got, tt.want)
			}
			// The order of the loads does not matter.
			rev := make([]HeadLoad, len(tt.loads))
			for i, l := range tt.loads {
				rev[len(rev)-1-i] = l
			}
			if again := Partition(rev, tt.n); !reflect.DeepEqual(again, got) {
				t.Errorf("reversed loads: %v, want %v", again, got)
			}
		})
	}
}
