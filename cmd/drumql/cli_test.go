package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

func TestStatsJSONFamily(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	family := filepath.Join(repoRoot(t), "examples", "family")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", family); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "", "--db", db, "stats", "--format", "json")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	var rep wire.Stats
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stats JSON: %v\n%s", err, stdout)
	}
	// facts.txt (17615) + train.txt (5868), from the dataset's README.
	if rep.BaseFacts != 23483 {
		t.Errorf("base_facts = %d, want 23483", rep.BaseFacts)
	}
	if rep.Relations != 12 {
		t.Errorf("relations = %d, want 12", rep.Relations)
	}
	want := map[string]int{"facts": 17615, "train": 5868, "valid": 2038, "test": 2835}
	for name, n := range want {
		if rep.Splits[name] != n {
			t.Errorf("split %s = %d, want %d", name, rep.Splits[name], n)
		}
	}
}

func TestLoadMalformedCommitsNothing(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	good := filepath.Join(tmp, "good.tsv")
	bad := filepath.Join(tmp, "bad.tsv")
	if err := os.WriteFile(good, []byte("a\tr\tb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := 0; i < 25; i++ {
		lines = append(lines, fmt.Sprintf("x%d\tr", i)) // two fields
	}
	lines = append(lines, "c\tr\td")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "load", good); code != 0 {
		t.Fatalf("load good: exit %d: %s", code, stderr)
	}
	_, stderr, code := runCLI(t, "", "--db", db, "load", good, bad)
	if code != 2 {
		t.Fatalf("load bad: exit %d, want 2; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, bad+":1:") || !strings.Contains(stderr, bad+":20:") {
		t.Errorf("stderr does not name file:line of the bad lines:\n%s", stderr)
	}
	if strings.Contains(stderr, bad+":21:") || !strings.Contains(stderr, "5 more") {
		t.Errorf("stderr should list 20 errors and count the rest:\n%s", stderr)
	}
	stdout, _, code := runCLI(t, "", "--db", db, "stats", "--format", "json")
	if code != 0 {
		t.Fatal("stats failed")
	}
	var rep wire.Stats
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.BaseFacts != 1 {
		t.Errorf("base facts after failed load = %d, want 1 (nothing committed)", rep.BaseFacts)
	}
}

func TestVersion(t *testing.T) {
	stdout, _, code := runCLI(t, "", "version")
	if code != 0 || !strings.Contains(stdout, runtime.Version()) || !strings.HasPrefix(stdout, "drumql ") {
		t.Fatalf("version: exit %d, output %q", code, stdout)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"stats", "--format", "xml"}, {"load"}} {
		if _, _, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("drumql %v: exit %d, want 2", args, code)
		}
	}
}

func TestHelpExit0(t *testing.T) {
	stdout, _, code := runCLI(t, "", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") {
		t.Fatalf("--help: exit %d:\n%s", code, stdout)
	}
}

// TestMineFromModel: rules read off a saved model are those mining wrote,
// and other extraction settings apply without training again.
func TestMineFromModel(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	data := filepath.Join(repoRoot(t), "examples", "families")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", data); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	model := filepath.Join(tmp, "m")
	mined, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--heads", "wife,husband", "--save-model", model)
	if code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	again, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--from-model", model)
	if code != 0 {
		t.Fatalf("mine --from-model: exit %d: %s", code, stderr)
	}
	if again != mined || !strings.Contains(mined, "\nwife(A, B) :-") && !strings.Contains(mined, ":: wife(A, B) :-") {
		t.Errorf("mine --from-model wrote\n%s\nmine wrote\n%s", again, mined)
	}
	fewer, _, code := runCLI(t, "", "--db", db, "-q", "mine", "--from-model", model, "--max-rules", "1")
	if code != 0 || strings.Count(fewer, ":-") != 2 {
		t.Errorf("--max-rules 1: exit %d, %d rules, want 2:\n%s", code, strings.Count(fewer, ":-"), fewer)
	}
	wifeOnly, _, code := runCLI(t, "", "--db", db, "-q", "mine", "--from-model", model, "--heads", "wife")
	if code != 0 || strings.Contains(wifeOnly, "husband(A, B) :-") || !strings.Contains(wifeOnly, "wife(A, B) :-") {
		t.Errorf("--from-model --heads wife: exit %d:\n%s", code, wifeOnly)
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "mine", "--from-model", filepath.Join(tmp, "missing")); code != 2 || !strings.Contains(stderr, "missing") {
		t.Errorf("missing model: exit %d, %s", code, stderr)
	}
	// The coverage mine prints is in the report too: both heads (the
	// model's) have rules, and the shares of valid queries reached agree.
	page := filepath.Join(tmp, "r.html")
	_, stderr, code = runCLI(t, "", "--db", db, "mine", "--from-model", model, "--report", page, "--out", filepath.Join(tmp, "r.dl"))
	if code != 0 {
		t.Fatalf("mine --report: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "coverage: rules for 2 of the 2 head relations") || !strings.Contains(string(html), "heads with rules") || !strings.Contains(string(html), "2 of 2") {
		t.Errorf("coverage of heads: stderr\n%s", stderr)
	}
	m := regexp.MustCompile(`reaches the answer of ([0-9.]+%) of the ([0-9]+) valid queries`).FindStringSubmatch(stderr)
	if m == nil || !strings.Contains(string(html), m[1]+" of "+m[2]) {
		t.Errorf("the report does not show the valid queries reached that mine printed (%v)", m)
	}
	// The best rules come with an example from the graph, whose facts
	// all hold in the store.
	ex := regexp.MustCompile(`<td>([^<]*) ⇐ ([^<]*)</td>`).FindAllStringSubmatch(string(html), -1)
	if len(ex) == 0 {
		t.Fatal("no example in the report")
	}
	for _, e := range ex[:min(len(ex), 5)] {
		facts := append([]string{e[1]}, regexp.MustCompile(`[a-z_]+\([^)]*\)`).FindAllString(e[2], -1)...)
		for _, f := range facts {
			f = strings.ReplaceAll(f, "&#34;", `"`)
			out, stderr, code := runCLI(t, "", "--db", db, "query", f+"?")
			if code != 0 || !strings.Contains(out, "true") {
				t.Errorf("example fact %s of %q does not hold: %s%s", f, e[0], out, stderr)
			}
		}
	}
}

// TestStoreInUse: a second user of the store gets a clear error and a hint,
// exit 1, at once.
func TestStoreInUse(t *testing.T) {
	db := filepath.Join(t.TempDir(), "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	held, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, stderr, code := runCLI(t, "", "--db", db, "stats")
	if code != 1 || !strings.Contains(stderr, "database is in use") || !strings.Contains(stderr, "hint:") {
		t.Errorf("stats on a held store: exit %d, stderr %q", code, stderr)
	}
}

// TestMineInterrupted: Ctrl-C during training (here: the context is
// cancelled after the second batch) still writes the rules of the current
// weights, says so, and exits 1; the file is a valid program.
func TestMineInterrupted(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	testHookMineProgress = func(p miner.Progress) {
		if !p.EpochDone {
			if batches++; batches == 2 {
				cancel()
			}
		}
	}
	defer func() { testHookMineProgress = nil }()
	out := filepath.Join(tmp, "partial.dl")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--db", db, "-q", "mine", "--out", out}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted after 0 epochs; wrote the") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "% interrupted: these are the rules of the weights when training was stopped") {
		t.Errorf("no interruption note in the rules file:\n%s", src)
	}
	if _, stderr, code := runCLI(t, "", "check", out); code != 0 {
		t.Errorf("check of the partial rules: exit %d: %s", code, stderr)
	}
}

// TestInferInterrupted: an infer that is cancelled leaves the store's
// previous derived facts.
func TestInferInterrupted(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	root := repoRoot(t)
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(root, "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	first := filepath.Join(tmp, "first.dl")
	os.WriteFile(first, []byte("spouse(X, Y) :- husband(X, Y).\n"), 0o644)
	if _, stderr, code := runCLI(t, "", "--db", db, "infer", first); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	before, _, _ := runCLI(t, "", "--db", db, "stats", "--format", "json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--db", db, "infer", filepath.Join(root, "examples", "families", "expert.dl")}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "infer interrupted: the store is unchanged") {
		t.Fatalf("cancelled infer: exit %d, stderr %q", code, stderr.String())
	}
	after, _, _ := runCLI(t, "", "--db", db, "stats", "--format", "json")
	if before != after || !strings.Contains(after, `"derived_facts": 51`) {
		t.Errorf("store changed by a cancelled infer:\nbefore %s\nafter %s", before, after)
	}
}

// TestEvalPrior: with --prior, the candidates no rule reaches are ranked by
// how many facts of the relation they fill the asked slot of. The expected
// reciprocal ranks are worked out by hand from the tiny graph below.
func TestEvalPrior(t *testing.T) {
	dir, rules := priorDataset(t)
	h := func(lo, hi int) float64 { // mean of 1/k over the ranks lo..hi
		s := 0.0
		for k := lo; k <= hi; k++ {
			s += 1 / float64(k)
		}
		return s / float64(hi-lo+1)
	}
	for _, tc := range []struct {
		prior      bool
		tail, head float64
	}{
		// Tail (e, r, ?): nothing reaches pop; 7 candidates tied, or pop
		// first (3 facts). Head (?, r, pop): a, b, c are filtered; d, e,
		// pop, rare tied, or d first (the subject of one fact), then e,
		// pop and rare tied.
		{false, h(1, 7), h(1, 4)},
		{true, 1, h(2, 4)},
	} {
		args := []string{"-q", "eval", "--data", dir, "--rules", rules, "--format", "json"}
		if tc.prior {
			args = append(args, "--prior")
		}
		out, stderr, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("eval %v: exit %d: %s", args, code, stderr)
		}
		var rep struct {
			Expected struct {
				MRR  float64 `json:"mrr"`
				Head struct {
					MRR float64 `json:"mrr"`
				} `json:"head"`
				Tail struct {
					MRR float64 `json:"mrr"`
				} `json:"tail"`
			} `json:"expected"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		got := rep.Expected
		if math.Abs(got.Tail.MRR-tc.tail) > 1e-6 || math.Abs(got.Head.MRR-tc.head) > 1e-6 || math.Abs(got.MRR-(tc.tail+tc.head)/2) > 1e-6 {
			t.Errorf("prior=%v: expected MRR tail %.6f head %.6f all %.6f, want %.6f %.6f %.6f",
				tc.prior, got.Tail.MRR, got.Head.MRR, got.MRR, tc.tail, tc.head, (tc.tail+tc.head)/2)
		}
	}
}

// priorDataset writes the tiny DRUM dataset of TestEvalPrior and a rule file
// that predicts nothing for its relation r.
func priorDataset(t *testing.T) (dir, rules string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"facts.txt":     "a\tr\tpop\nb\tr\tpop\nc\tr\tpop\n",
		"train.txt":     "d\tr\trare\n",
		"valid.txt":     "",
		"test.txt":      "e\tr\tpop\n",
		"entities.txt":  "a\nb\nc\nd\ne\npop\nrare\n",
		"relations.txt": "r\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules = filepath.Join(dir, "rules.dl")
	if err := os.WriteFile(rules, []byte("s(X, Y) :- r(X, Y).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, rules
}

// TestEvalModelWithRules: --model with --rules (and --prior) evaluates every
// query through the hybrid scorer; a missing rule file is an input error
// naming it.
func TestEvalModelWithRules(t *testing.T) {
	dir, rules := priorDataset(t)
	db := filepath.Join(t.TempDir(), "db")
	model := filepath.Join(t.TempDir(), "m")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", dir); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--epochs", "1", "--save-model", model); code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "", "-q", "eval", "--data", dir, "--model", model, "--rules", rules, "--prior", "--format", "json")
	if code != 0 {
		t.Fatalf("eval --model --rules --prior: exit %d: %s", code, stderr)
	}
	var rep struct {
		Queries int `json:"queries"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Queries != 2 {
		t.Errorf("eval --model --rules: %d queries (%v), want 2:\n%s", rep.Queries, err, out)
	}
	missing := filepath.Join(dir, "missing.dl")
	_, stderr, code = runCLI(t, "", "-q", "eval", "--data", dir, "--model", model, "--rules", missing, "--prior")
	if code != 2 || !strings.Contains(stderr, "missing.dl") {
		t.Errorf("missing rule file: exit %d, %s", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "-q", "eval", "--data", dir, "--model", model, "--prior")
	if code != 2 || !strings.Contains(stderr, "--prior") {
		t.Errorf("--prior without --rules: exit %d, %s", code, stderr)
	}
}

// TestEvalModelUnseenRelation: eval --model on a test split with a
// relation the model never saw scores those queries 0, says how many, and
// evaluates the rest, instead of failing.
func TestEvalModelUnseenRelation(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(repoRoot(t), "examples", "families")
	for _, f := range []string{"facts.txt", "train.txt", "valid.txt", "test.txt"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "test.txt" {
			b = append(b, "alice_ortiz\tgodparent\tmarc_ueda\n"...)
		}
		if err := os.WriteFile(filepath.Join(data, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", data); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	model := filepath.Join(tmp, "model")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--heads", "wife", "--epochs", "1",
		"--aggregate", "max", "--save-model", model, "--out", filepath.Join(tmp, "w.dl")); code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "", "--db", db, "-q", "eval", "--model", model, "--format", "json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "2 of the 278 queries ask relations the model never learnt") || !strings.Contains(out, `"queries": 278`) {
		t.Errorf("stderr %q, stdout %.200q", stderr, out)
	}
}

// TestMineEvalNeedsTestSplit: mine --eval on a store without a test split
// is refused before training.
func TestMineEvalNeedsTestSplit(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\tr\tb\nb\tr\tc\n")
	progressed := hookMineProgress(t)
	_, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--eval", "--out", filepath.Join(tmp, "r.dl"))
	if code != 2 || !strings.Contains(stderr, "no test split") || *progressed {
		t.Errorf("exit %d, trained %v: %s", code, *progressed, stderr)
	}
}

// TestEvalUsesDirective: eval --rules ranks as the file's @aggregate
// directive says, and --combine overrides it.
func TestEvalUsesDirective(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", filepath.Join(repoRoot(t), "examples", "kinship")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	maxFile := filepath.Join(tmp, "max.dl")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--epochs", "1", "--aggregate", "max", "--out", maxFile); code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(maxFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\n@aggregate max.\n") {
		t.Fatalf("mine --aggregate max wrote no directive:\n%.300s", src)
	}
	noisyFile := filepath.Join(tmp, "noisy.dl")
	noisy := strings.Replace(string(src), "\n@aggregate max.\n", "\n@aggregate noisy_or(top = 5).\n", 1)
	if err := os.WriteFile(noisyFile, []byte(noisy), 0o644); err != nil {
		t.Fatal(err)
	}
	eval := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "eval", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("eval %v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	byMax, byNoisy := eval("--rules", maxFile), eval("--rules", noisyFile)
	if byMax == byNoisy {
		t.Fatal("max and noisy-or rank the same here: the test checks nothing")
	}
	if got := eval("--rules", maxFile, "--combine", "noisy-or"); got != byNoisy {
		t.Error("the noisy_or(top = 5) directive ranks differently from --combine noisy-or")
	}
	if got := eval("--rules", noisyFile, "--combine", "max"); got != byMax {
		t.Error("--combine max does not override the file's directive")
	}
	// By default mine chooses the directive on the valid split and says so.
	autoFile := filepath.Join(tmp, "auto.dl")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--epochs", "1", "--out", autoFile); code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	auto, err := os.ReadFile(autoFile)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^% aggregation \S.* chosen on 2198 valid queries \(MRR 0\.\d+;.*\n\n@aggregate `).Match(auto) {
		t.Errorf("mine did not record an aggregation chosen on valid:\n%.400s", auto)
	}
}

// TestMineBounds: mine's epoch bound and hub cap are checked before any
// work, and say what they do when they act.
func TestMineBounds(t *testing.T) {
	tmp := t.TempDir()
	// A star: 30 people married to one hub "h", plus a chain of parents.
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "p%d\tspouse\th\n", i)
		fmt.Fprintf(&b, "p%d\tparent\tp%d\n", i, i+1)
	}
	db := loadTSV(t, tmp, b.String())
	progressed := hookMineProgress(t)
	for _, bad := range []string{"--max-queries=-2", "--max-fan-out=-5", "--constant-len=3", "--constant-len=0"} {
		_, stderr, code := runCLI(t, "", "--db", db, "mine", bad, "--out", filepath.Join(tmp, "r.dl"))
		flag := strings.SplitN(bad, "=", 2)[0]
		if code != 2 || !strings.Contains(stderr, flag) || *progressed {
			t.Errorf("mine %s: exit %d, trained %v: %s", bad, code, *progressed, stderr)
		}
	}
	testHookMineProgress = nil
	_, stderr, code := runCLI(t, "", "--db", db, "mine", "--len", "2", "--epochs", "1", "--max-queries", "5", "--max-fan-out", "10", "--out", filepath.Join(tmp, "r.dl"))
	if code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	// Two relations of 30 triples each, at most 5 of each per epoch.
	for _, want := range []string{
		"an epoch trains on 10 of the 60 training triples (at most 5 per relation",
		"out of hubs (more than 10 neighbours through one relation direction)",
		"mine: epoch 1/1: ", // stderr is not a terminal: a line per epoch
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("mine's messages lack %q:\n%s", want, stderr)
		}
	}
}

// TestMineMaxMemory: mine prints its estimate and, above --max-memory,
// refuses before training with a message naming the flag that overrides it.
func TestMineMaxMemory(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\tr\tb\nb\tr\tc\n")
	progressed := hookMineProgress(t)
	_, stderr, code := runCLI(t, "", "--db", db, "mine", "--max-memory", "1M", "--out", filepath.Join(tmp, "r.dl"))
	if code != 1 || *progressed || !strings.Contains(stderr, "mine: estimated peak memory ") ||
		!strings.Contains(stderr, "more than the --max-memory (1 MB)") || !strings.Contains(stderr, "pass --max-memory SIZE (or --max-memory off)") {
		t.Errorf("mine --max-memory 1M: exit %d, trained %v:\n%s", code, *progressed, stderr)
	}
	// --from-model estimates its rule step, and refuses the same way.
	model := filepath.Join(tmp, "m.model")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--epochs", "1", "--save-model", model, "--out", filepath.Join(tmp, "r.dl")); code != 0 {
		t.Fatalf("mine --save-model: exit %d: %s", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "--db", db, "mine", "--from-model", model, "--max-memory", "1M", "--out", filepath.Join(tmp, "r2.dl"))
	if code != 1 || !strings.Contains(stderr, "mine: estimated peak memory ") || !strings.Contains(stderr, "more than the --max-memory (1 MB)") {
		t.Errorf("mine --from-model --max-memory 1M: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(tmp, "r2.dl")); err == nil {
		t.Errorf("mine --from-model refused but wrote its rule file")
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "mine", "--from-model", model, "--out", filepath.Join(tmp, "r3.dl")); code != 0 || !strings.Contains(stderr, "mine: estimated peak memory ") {
		t.Errorf("mine --from-model: exit %d, no estimate:\n%s", code, stderr)
	}
}

// TestMineSoftLimit checks that mine trains under its estimate as the
// collector's soft memory limit, restores the previous limit when it ends,
// and leaves a GOMEMLIMIT from the environment alone.
func TestMineSoftLimit(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\tr\tb\nb\tr\tc\nc\tr\td\n")
	prev := debug.SetMemoryLimit(-1)
	for _, env := range []string{"", "1GiB"} {
		t.Setenv("GOMEMLIMIT", env)
		var during int64
		testHookMineProgress = func(miner.Progress) { during = debug.SetMemoryLimit(-1) }
		_, stderr, code := runCLI(t, "", "--db", db, "mine", "--epochs", "1", "--out", filepath.Join(tmp, "r.dl"))
		testHookMineProgress = nil
		if code != 0 {
			t.Fatalf("mine: exit %d: %s", code, stderr)
		}
		var est float64
		if _, err := fmt.Sscanf(stderr[strings.Index(stderr, "estimated peak memory ")+len("estimated peak memory "):], "%g MB", &est); err != nil {
			t.Fatalf("no estimate in %q: %v", stderr, err)
		}
		switch {
		case env == "" && math.Abs(float64(during)/(1<<20)-est) > 0.5:
			t.Errorf("limit while training %d bytes, want the estimate %g MB", during, est)
		case env != "" && during != prev:
			t.Errorf("GOMEMLIMIT=%s: limit while training %d, want %d left alone", env, during, prev)
		}
		if got := debug.SetMemoryLimit(-1); got != prev {
			t.Errorf("limit after mine %d, want %d restored", got, prev)
		}
	}
}

// loadTSV loads one TSV file with the given content into a new store under
// dir and returns the store's path.
func loadTSV(t *testing.T, dir, content string) string {
	t.Helper()
	tsv := filepath.Join(dir, "g.tsv")
	if err := os.WriteFile(tsv, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", tsv); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	return db
}

// hookMineProgress reports, through the returned flag, whether mine trained
// (called its progress function) until the test ends.
func hookMineProgress(t *testing.T) *bool {
	progressed := new(bool)
	testHookMineProgress = func(miner.Progress) { *progressed = true }
	t.Cleanup(func() { testHookMineProgress = nil })
	return progressed
}
