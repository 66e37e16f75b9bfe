package miner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fill sets every exported field of the struct v points to, recursively,
// to a value other than its zero; pointers and functions are left alone.
func fill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.Struct:
			fill(f)
		case reflect.Int:
			f.SetInt(int64(7 + i))
		case reflect.Uint64:
			f.SetUint(uint64(9 + i))
		case reflect.Float64:
			f.SetFloat(0.1 + float64(i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"r", "s"}))
		}
	}
}

// TestOptionsJSON: the options a cluster ships keep every field but those
// that are not data (Threads, the graph, the stop policy), numbers exactly.
func TestOptionsJSON(t *testing.T) {
	var opt Options
	fill(reflect.ValueOf(&opt).Elem())
	opt.Extract.Weight = WeightScore
	opt.Extract.MinScore = 1.0 / 3
	b, err := json.Marshal(opt)
	if err != nil {
		t.Fatal(err)
	}
	var got Options
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := opt
	want.Config.Threads, want.Extract.Threads, want.Constants.Threads, want.RulesWhenStopped = 0, 0, 0, false
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip through %s:\n got %+v\nwant %+v", b, got, want)
	}
}

// TestMineHeadGroups: with head groups, every group's model and rules are
// those of Mine with Config.Heads = the group, the merged rules are sorted
// by head, and the reports carry the group.
func TestMineHeadGroups(t *testing.T) {
	st := memStore(t, tinySplits())
	ctx := context.Background()
	g, err := LoadGraph(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Config: Config{MaxEpochs: 2, Hidden: 8, Embed: 8}, HeadGroups: 2}
	var groupsSeen []int
	res, err := Mine(ctx, st, g, opt, func(p Progress) {
		if p.Trained {
			groupsSeen = append(groupsSeen, p.Group)
		}
		if p.Groups != 2 {
			t.Errorf("report %+v: Groups %d, want 2", p, p.Groups)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 || len(res.Models) != 2 || !slices.Equal(groupsSeen, []int{1, 2}) {
		t.Fatalf("%d groups, %d models, trained reports for groups %v; want 2, 2, [1 2]", len(res.Groups), len(res.Models), groupsSeen)
	}
	if !slices.IsSortedFunc(res.Rules, func(a, b MinedRule) int { return strings.Compare(a.Head, b.Head) }) {
		t.Error("the merged rules are not sorted by head")
	}
	for k, gr := range res.Groups {
		one := opt
		one.HeadGroups, one.Config.Heads = 0, gr.Heads
		alone, err := Mine(ctx, st, g, one, nil)
		if err != nil {
			t.Fatal(err)
		}
		if alone.Groups != nil || len(alone.Models) != 1 {
			t.Fatalf("one model: %d groups, %d models", len(alone.Groups), len(alone.Models))
		}
		var a, b bytes.Buffer
		if err := res.Models[k].Save(&a); err != nil {
			t.Fatal(err)
		}
		if err := alone.Models[0].Save(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("group %d: the model differs from the one trained alone", k+1)
		}
		var inGroup []MinedRule
		for _, r := range res.Rules {
			if slices.Contains(gr.Heads, r.Head) {
				inGroup = append(inGroup, r)
			}
		}
		if !reflect.DeepEqual(inGroup, alone.Rules) {
			t.Errorf("group %d %v: %d rules, %d alone", k+1, gr.Heads, len(inGroup), len(alone.Rules))
		}
	}
}

// TestMineStopped: a cancelled run returns the model of the current
// weights with an error wrapping the context's, and its rules only when
// asked to.
func TestMineStopped(t *testing.T) {
	st := memStore(t, tinySplits())
	g, err := LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		opt := Options{Config: Config{MaxEpochs: 3, Batch: 1, Hidden: 8, Embed: 8}, RulesWhenStopped: keep}
		res, err := Mine(ctx, st, g, opt, func(p Progress) {
			if p.Batch == 1 {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) || len(res.Models) != 1 {
			t.Fatalf("RulesWhenStopped %v: error %v, %d models; want context.Canceled and the model", keep, err, len(res.Models))
		}
		if got := len(res.Rules) > 0; got != keep {
			t.Errorf("RulesWhenStopped %v: %d rules", keep, len(res.Rules))
		}
	}
}
