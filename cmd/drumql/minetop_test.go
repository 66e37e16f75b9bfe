package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/parser"
)

// TestMineTop: mine --top N writes at most N rules per head, says in its
// header and on stderr what they score on valid against the whole file, and
// a negative N is a usage error.
func TestMineTop(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "", "--db", db, "mine", "--heads", "wife,husband,son", "--epochs", "3", "--top", "2")
	if code != 0 {
		t.Fatalf("mine --top 2: exit %d: %s", code, stderr)
	}
	line := regexp.MustCompile(`the best 2 rules per head \((\d+) of (\d+); by support × confidence, covering or ranking for \d+, \d+ and \d+ relations, valid MRR alone [0-9.]+, [0-9.]+ and [0-9.]+\): valid MRR [0-9.]+, the whole file's [0-9.]+ \([0-9.]+%\)`)
	if !line.MatchString(out) || !line.MatchString(stderr) {
		t.Errorf("no line on what --top costs:\n%s\n%s", out, stderr)
	}
	p, err := parser.ParseString("mined.dl", out)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range p.Rules {
		per[r.Head.Pred]++
	}
	if len(per) != 3 {
		t.Errorf("heads %v, want wife, husband and son", per)
	}
	for h, n := range per {
		if n > 2 {
			t.Errorf("%s: %d rules, want at most 2", h, n)
		}
	}
	if m := line.FindStringSubmatch(stderr); m != nil && m[1] != itoa(len(p.Rules)) {
		t.Errorf("the line says %s rules kept, the file has %d", m[1], len(p.Rules))
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "mine", "--top=-1"); code != 2 || !strings.Contains(stderr, "--top -1") {
		t.Errorf("--top -1: exit %d: %s", code, stderr)
	}
}

// TestMineTimeCap: --time cuts training when it passes (here during the
// second batch, which the hook holds past it): mine still writes the rules
// of the weights then, exits 0, and the file's header says the cap cut it.
func TestMineTimeCap(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	batches := 0
	testHookMineProgress = func(p miner.Progress) {
		if !p.EpochDone {
			if batches++; batches == 2 {
				time.Sleep(time.Second)
			}
		}
	}
	defer func() { testHookMineProgress = nil }()
	out := filepath.Join(tmp, "capped.dl")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--time", "500ms", "--widen", "off", "--out", out); code != 0 {
		t.Fatalf("mine --time: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "% training cut by --time 500ms after 0 epochs: these are the rules of the weights then") {
		t.Errorf("no cap note in the header:\n%.600s", src)
	}
	if _, stderr, code := runCLI(t, "", "check", out); code != 0 {
		t.Errorf("check of the capped rules: exit %d: %s", code, stderr)
	}
}

// TestReportListsTopFirst: the report of a whole file lists first, per
// head, the rules mine --top 20 keeps (marked ★), and only those: on
// family's aunt, whose file has far more than 20 rules.
func TestReportListsTopFirst(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "family")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	model, page := filepath.Join(tmp, "m"), filepath.Join(tmp, "r.html")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--heads", "aunt", "--epochs", "1", "--widen", "off",
		"--save-model", model, "--report", page, "--out", filepath.Join(tmp, "all.dl")); code != 0 {
		t.Fatalf("mine --report: exit %d: %s", code, stderr)
	}
	top, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--from-model", model, "--widen", "off", "--top", "20")
	if code != 0 {
		t.Fatalf("mine --top 20: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var kept, starred []string
	for _, line := range strings.Split(top, "\n") {
		if _, rule, ok := strings.Cut(line, " :: "); ok {
			kept = append(kept, rule)
		}
	}
	for _, m := range regexp.MustCompile(`<tr><td>\d+ ★</td>.*?<td class="rule">([^<]*)</td>`).FindAllStringSubmatch(string(html), -1) {
		starred = append(starred, strings.ReplaceAll(m[1], "&#34;", `"`))
	}
	slices.Sort(kept)
	slices.Sort(starred)
	if all := strings.Count(string(html), `<td class="rule">`); len(kept) != 20 || all <= 20 || !slices.Equal(starred, kept) {
		t.Errorf("the report marks %d of %d rules first, mine --top 20 keeps %d:\n%q\n%q", len(starred), all, len(kept), starred, kept)
	}
}
