package main

import (
	"context"
	"github.com/drumql/drumql/scoring"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// familiesGroups are the two head groups of examples/families, worked out
// by hand in miner's TestPartition from the training queries per relation.
var familiesGroups = [][]string{
	{"father", "husband", "mother", "sister", "son", "uncle"},
	{"aunt", "brother", "daughter", "nephew", "niece", "wife"},
}

// headBlocks splits a mined file into its "% ---- head ----" blocks.
func headBlocks(t *testing.T, file string) map[string]string {
	t.Helper()
	blocks := map[string]string{}
	parts := strings.Split(file, "\n% ---- ")
	for _, p := range parts[1:] {
		head, _, ok := strings.Cut(p, " ----\n")
		if !ok {
			t.Fatalf("malformed block %q", p)
		}
		blocks[head] = p
	}
	return blocks
}

// TestMineHeadGroups: mine --head-groups 2 gives the hand-worked partition,
// the rules of every head are those of mine --heads <its group> run alone,
// the bytes do not depend on --threads but do on the seed, and eval --model
// reads the manifest of the group models.
func TestMineHeadGroups(t *testing.T) {
	db := loadFamilies(t)
	tmp := t.TempDir()
	args := []string{"--db", db, "-q", "mine", "--epochs", "2", "--aggregate", "max"}
	model := filepath.Join(tmp, "fam.model")
	grouped, stderr, code := runCLI(t, "", append(args, "--head-groups", "2", "--threads", "1", "--save-model", model)...)
	if code != 0 {
		t.Fatalf("mine --head-groups 2: exit %d: %s", code, stderr)
	}
	for k, g := range familiesGroups {
		line := "% group " + itoa(k+1) + " ("
		if !strings.Contains(grouped, line) || !strings.Contains(grouped, "training queries): "+strings.Join(g, " ")+"\n") {
			t.Errorf("header lacks group %d = %v:\n%s", k+1, g, grouped[:strings.Index(grouped, "@aggregate")])
		}
	}
	blocks := headBlocks(t, grouped)
	if len(blocks) != 12 {
		t.Errorf("%d head blocks, want 12", len(blocks))
	}
	for _, g := range familiesGroups {
		alone, stderr, code := runCLI(t, "", append(args, "--heads", strings.Join(g, ","))...)
		if code != 0 {
			t.Fatalf("mine --heads %v: exit %d: %s", g, code, stderr)
		}
		ab := headBlocks(t, alone)
		for _, h := range g {
			if ab[h] == "" || ab[h] != blocks[h] {
				t.Errorf("head %s: --head-groups gave\n%s\n--heads %v gave\n%s", h, blocks[h], g, ab[h])
			}
		}
	}
	again, _, code := runCLI(t, "", append(args, "--head-groups", "2", "--threads", "2")...)
	if code != 0 || again != grouped {
		t.Errorf("--threads 2 changed the rules (exit %d)", code)
	}
	other, _, code := runCLI(t, "", append(args, "--head-groups", "2", "--seed", "7")...)
	if code != 0 || other == grouped || !strings.Contains(other, "seed=7") {
		t.Errorf("--seed 7 gave the same rules (exit %d)", code)
	}
	for k := range familiesGroups {
		if _, err := os.Stat(model + ".g" + itoa(k+1)); err != nil {
			t.Errorf("group model: %v", err)
		}
	}
	out, stderr, code := runCLI(t, "", "--db", db, "eval", "--model", model)
	if code != 0 || !strings.Contains(out, "all ") {
		t.Errorf("eval --model manifest: exit %d: %s%s", code, out, stderr)
	}
	// --from-model reads the rules off the group models again.
	fromModel, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--from-model", model, "--aggregate", "max")
	if code != 0 || headBlocks(t, fromModel)["wife"] != blocks["wife"] {
		t.Errorf("mine --from-model manifest: exit %d: %s\n%s", code, stderr, fromModel)
	}
	// A group model of another run is refused, naming the file.
	if err := os.WriteFile(model+".g2", []byte("drumql-drum-model 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "eval", "--model", model); code != 2 || !strings.Contains(stderr, "fam.model.g2") || !strings.Contains(stderr, "SHA-256") {
		t.Errorf("damaged group model: exit %d: %s", code, stderr)
	}
}

// TestSetScorer: each relation is scored by the model of its group.
func TestSetScorer(t *testing.T) {
	db := loadFamilies(t)
	tmp := t.TempDir()
	model := filepath.Join(tmp, "m")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--epochs", "1", "--head-groups", "2", "--save-model", model, "--aggregate", "max"); code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	set, err := loadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Models) != 2 || !reflect.DeepEqual(set.Heads, familiesGroups) {
		t.Fatalf("manifest groups %v, want %v", set.Heads, familiesGroups)
	}
	st, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := miner.LoadGraph(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	snap := g.Snapshot()
	sc := scoring.NewModelScorer(g, snap.Entities, set.Models, set.Heads)
	for i, id := range snap.Relations {
		name := g.Relations()[i]
		want := 0
		if !slices.Contains(familiesGroups[0], name) {
			want = 1
		}
		q := []linkpred.Query{{Rel: id, Given: g.Snapshot().Entities[0], Inverse: true}}
		got := make([]linkpred.Scores, 1)
		if err := sc.Score(context.Background(), q, got); err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			one := scoring.NewModelScorer(g, snap.Entities, set.Models[k:k+1], nil)
			exp := make([]linkpred.Scores, 1)
			if err := one.Score(context.Background(), q, exp); err != nil {
				t.Fatal(err)
			}
			if same := reflect.DeepEqual(got[0].Dense, exp[0].Dense); same != (k == want) {
				t.Errorf("%s: scores equal to group %d's model: %v, want group %d", name, k+1, same, want+1)
			}
		}
	}
}
