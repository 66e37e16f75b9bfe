package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMineHelpGroups: mine --help shows the everyday flags first and the
// rest in their groups, in order.
func TestMineHelpGroups(t *testing.T) {
	out, stderr, code := runCLI(t, "", "mine", "--help")
	if code != 0 {
		t.Fatalf("mine --help: exit %d: %s", code, stderr)
	}
	at := func(s string) int {
		i := strings.Index(out, s)
		if i < 0 {
			t.Fatalf("mine --help has no %q:\n%s", s, out)
		}
		return i
	}
	last := at("--out=FILE")
	for _, s := range []string{"--config=FILE", "\nTraining (DRUM):\n", "--rank=L", "\nChain rules", "--max-rules=N",
		"\nRules with constants:\n", "--constant-rules=N", "\nAggregation:\n", "--aggregate=", "\nOutput:\n", "--report=",
		"\nMemory and scale:\n", "--max-memory=", "\nHead groups and cluster", "--head-groups=N", "--tls-key="} {
		if i := at(s); i < last {
			t.Errorf("mine --help: %q comes before what precedes it", s)
		} else {
			last = i
		}
	}
	for _, s := range []string{"--len=T", "--epochs=N", "--heads=", "--threshold=X", "--write-config=FILE"} {
		if at(s) > at("\nTraining (DRUM):\n") {
			t.Errorf("mine --help: %s is not among the first flags", s)
		}
	}
}

// TestMineConfig: --config sets flags, the command line overrides them,
// an unknown key or a value of the wrong type is a usage error naming the
// file and the key, and the configuration --write-config wrote, read back,
// mines the same file byte for byte.
func TestMineConfig(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\thusband\tb\nb\twife\ta\nc\thusband\td\nd\twife\tc\ne\thusband\tf\nf\twife\te\n")
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine := func(args ...string) {
		t.Helper()
		if _, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "mine"}, args...)...); code != 0 {
			t.Fatalf("mine %v: exit %d: %s", args, code, stderr)
		}
	}
	read := func(p string) []byte {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	readConfig := func(p string) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(read(p), &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return m
	}

	// The file sets --epochs, --len, --threshold and --heads; --len on the
	// command line overrides it.
	cfg := write("mine.json", `{"epochs": 2, "len": 2, "threshold": 0.05, "heads": ["wife", "husband"], "min-score": null}`)
	out, written := filepath.Join(tmp, "r.dl"), filepath.Join(tmp, "run.json")
	mine("--config", cfg, "--len", "1", "--out", out, "--write-config", written)
	src := string(read(out))
	if !strings.Contains(src, "\n% T=1 L=3 batch=64 seed=33 epochs=2") || !strings.Contains(src, "\n@min 0.05.\n") {
		t.Errorf("the mined file's settings are not the config file's with --len 1:\n%.400s", src)
	}
	got := readConfig(written)
	for k, want := range map[string]any{"epochs": 2.0, "len": 1.0, "threshold": 0.05, "rank": 3.0, "min-score": nil,
		"aggregate": "auto", "ack-wait": "30s", "heads": []any{"wife", "husband"}, "out": out} {
		if g, ok := got[k]; !ok || !jsonEqual(g, want) {
			t.Errorf("written config: %s = %v, want %v", k, g, want)
		}
	}
	for _, k := range []string{"config", "write-config", "db"} {
		if _, ok := got[k]; ok {
			t.Errorf("written config has %q", k)
		}
	}
	if data := read(written); !bytes.HasPrefix(data, []byte("{\n  \"ack-wait\": ")) {
		t.Errorf("written config is not keyed in order:\n%.200s", data)
	}

	// Read back, it mines the same file (the header's sha256 included)
	// and writes the same configuration.
	again, rewritten := filepath.Join(tmp, "r2.dl"), filepath.Join(tmp, "run2.json")
	mine("--config", written, "--out", again, "--write-config", rewritten)
	if !bytes.Equal(read(out), read(again)) {
		t.Errorf("the written config did not reproduce the mined file:\n%s\n----\n%s", read(out), read(again))
	}
	got2 := readConfig(rewritten)
	got2["out"] = out
	if !jsonEqual(map[string]any(got2), map[string]any(got)) {
		t.Errorf("the configuration written again differs:\n%s\n----\n%s", read(written), read(rewritten))
	}

	// Usage errors name the file and the key.
	for _, tc := range []struct{ content, want string }{
		{`{"epochs": 1, "bogus": 2}`, `unknown key "bogus"`},
		{`{"db": "x"}`, `unknown key "db"`},
		{`{"config": "x"}`, `unknown key "config"`},
		{`{"epochs": "2"}`, `key "epochs": want a number`},
		{`{"heads": "wife"}`, `key "heads": want an array of strings`},
		{`[1]`, `not a JSON object`},
	} {
		bad := write("bad.json", tc.content)
		_, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--config", bad, "--out", filepath.Join(tmp, "x.dl"))
		if code != exitUsage || !strings.Contains(stderr, bad) || !strings.Contains(stderr, tc.want) {
			t.Errorf("mine --config with %s: exit %d, %q; want exit 2 naming %s and %s", tc.content, code, stderr, bad, tc.want)
		}
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--config", filepath.Join(tmp, "missing.json")); code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("mine --config missing.json: exit %d, %q", code, stderr)
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
