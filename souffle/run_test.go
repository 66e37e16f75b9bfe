package souffle

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write writes files (name: content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runIn runs the program prog.dl of dir with facts in dir/facts and
// outputs in dir/out, returning stdout.
func runIn(t *testing.T, dir string, cfg Config) (string, error) {
	t.Helper()
	if cfg.Program == "" {
		cfg.Program = filepath.Join(dir, "prog.dl")
	}
	if cfg.FactDir == "" {
		cfg.FactDir = filepath.Join(dir, "facts")
	}
	if cfg.OutputDir == "" {
		cfg.OutputDir = filepath.Join(dir, "out")
		if err := os.MkdirAll(cfg.OutputDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), cfg, &stdout, &stderr)
	return stdout.String(), err
}

func readOut(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const reachProgram = `// reachability, as Soufflé programs are written
#include "types.dl"
#define LIMIT 3
.decl Edge(from: node, to: node)
.input Edge
.decl reach(x: node, y: node) // lowercase variables, relations of any case
.output reach
.decl Hops(x: node, n: number)
.output Hops(IO=file, filename="hops.tsv")
.decl labels(l: label, w: unsigned)
.input labels(delimiter=",", headers=true)
.output labels
.decl small(x: node)
.printsize small
.printsize reach
reach(x, y) :- Edge(x, y).
reach(x, z) :- reach(x, y), Edge(y, z).
Hops(x, n) :- Edge(x, _), n = count : { reach(x, _) }.
#ifdef LIMIT
small(x) :- Hops(x, n), n < LIMIT.
#else
small(x) :- Hops(x, _).
#endif
/* a block
   comment */
`

const reachTypes = `.type node <: symbol
.type name <: symbol
.type label = name | node
`

func TestRunReach(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl": reachProgram, "types.dl": reachTypes,
		"facts/Edge.facts":   "a\tb\nb\tc\nc\td\n",
		"facts/labels.facts": "l,w\nred,007\nblue,2\n",
	})
	for _, jobs := range []int{1, 4} {
		stdout, err := runIn(t, dir, Config{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if want := "small\t2\nreach\t6\n"; stdout != want {
			t.Errorf("-j %d: stdout %q, want %q", jobs, stdout, want)
		}
		want := map[string]string{
			"reach.csv":  "a\tb\na\tc\na\td\nb\tc\nb\td\nc\td\n",
			"hops.tsv":   "a\t3\nb\t2\nc\t1\n",
			"labels.csv": "blue\t2\nred\t7\n",
		}
		for name, w := range want {
			if got := readOut(t, filepath.Join(dir, "out", name)); got != w {
				t.Errorf("-j %d: %s = %q, want %q", jobs, name, got, w)
			}
		}
	}
}

func TestRunGzipAndStdout(t *testing.T) {
	dir := t.TempDir()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("1\t2.5\n3\t0.25\n"))
	zw.Close()
	write(t, dir, map[string]string{
		"prog.dl": `.decl In(n: number, f: float)
.input In(filename="in.tsv.gz")
.decl Out(n: number, f: float)
.output Out(IO=stdout)
Out(n + 1, f) :- In(n, f).
`,
		"facts/in.tsv.gz": z.String(),
	})
	stdout, err := runIn(t, dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "---------------\nOut\n===============\n2\t2.5\n4\t0.25\n===============\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
}

func TestRunConfidence(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl p(x: symbol)
.output p
p("a").
0.5 :: p("b").
`})
	if _, err := runIn(t, dir, Config{Confidence: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := readOut(t, filepath.Join(dir, "out", "p.csv")), "a\t1\nb\t0.5\n"; got != want {
		t.Errorf("p.csv = %q, want %q", got, want)
	}
}

func TestRunDrumqlDialect(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": "e(a, b). e(b, c).\nr(X, Y) :- e(X, Y).\nr(X, Z) :- r(X, Y), e(Y, Z).\n"})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	if got, want := readOut(t, filepath.Join(dir, "out", "r.csv")), "a\tb\na\tc\nb\tc\n"; got != want {
		t.Errorf("r.csv = %q, want %q", got, want)
	}
}

func TestIsSouffle(t *testing.T) {
	for _, c := range []struct {
		path, src string
		want      bool
	}{
		{"p.dl", ".decl e(x: number)\n", true},
		{"p.dl", "  .decl e(x: number)\n", true},
		{"p.souffle", "e(1).\n", true},
		{"p.dl", "@dialect souffle\ne(1).\n", true},
		{"p.dl", "e(1).\n% .decl in a comment is not at the start of a line\n", false},
		{"types.dl", ".type node <: symbol\n", true},
		{"rules.dl", "r(X) :- e(X).\n", false},
	} {
		if got := IsSouffle(c.path, []byte(c.src)); got != c.want {
			t.Errorf("IsSouffle(%q, %q) = %v", c.path, c.src, got)
		}
	}
}

// TestRunErrors checks that each error names its place and that nothing
// is written.
func TestRunErrors(t *testing.T) {
	prog := ".decl In(n: number)\n.input In\n.decl Out(n: number)\n.output Out\nOut(n) :- In(n).\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		setup func(dir string)
		want  string
	}{
		{"missing input", map[string]string{"prog.dl": prog}, nil, "prog.dl:2:1: error: .input In: cannot read"},
		{"directory input", map[string]string{"prog.dl": prog, "facts/In.facts/x": ""}, nil, "it is a directory"},
		{"fifo input", map[string]string{"prog.dl": prog}, func(dir string) {
			os.MkdirAll(filepath.Join(dir, "facts"), 0o755)
			if err := syscall.Mkfifo(filepath.Join(dir, "facts", "In.facts"), 0o644); err != nil {
				t.Skip(err)
			}
		}, "it is a FIFO"},
		{"malformed number", map[string]string{"prog.dl": prog, "facts/In.facts": "1\n2x\n"}, nil, "In.facts:2:1: error: \"2x\" is not an integer"},
		{"wrong arity", map[string]string{"prog.dl": prog, "facts/In.facts": "1\t2\n"}, nil, "In.facts:1:1: error: 2 fields, but In has 1 attributes"},
		{"undeclared", map[string]string{"prog.dl": ".decl Out(n: number)\n.output Out\nOut(n) :- In(n).\n"}, nil, "prog.dl:3:11: error: relation In is not declared"},
		{"syntax", map[string]string{"prog.dl": ".decl Out(n: number)\nOut(n) :- .\n"}, nil, "prog.dl:2:"},
		{"unknown component", map[string]string{"prog.dl": ".decl e(x: number)\n.init c = C\n"}, nil, "prog.dl:2:11: error: unknown component C"},
		{"witness", map[string]string{"prog.dl": ".decl s(n: symbol, h: number)\n.decl t(n: symbol, h: number)\nt(who, m) :- m = sum h : { s(who, h) }.\n"}, nil, "prog.dl:3:18: error: unsupported: aggregate witnesses of sum (who is bound only inside it"},
		{"adt", map[string]string{"prog.dl": ".type P = $A(a: number) | $B {}\n.decl e(x: P)\n"}, nil, "prog.dl:1:11: error: unsupported: algebraic data types"},
		{"functor", map[string]string{"prog.dl": ".functor f(x: number): number\n.decl e(x: number)\n"}, nil, "prog.dl:1:1: error: unsupported: user-defined functors"},
		{"math", map[string]string{"prog.dl": ".decl e(x: float)\ne(sin(1.0)).\n"}, nil, "prog.dl:2:3: error: unsupported: sin: mathematical functors"},
		{"choice", map[string]string{"prog.dl": ".decl e(x: number, y: number) choice-domain z\n"}, nil, "prog.dl:1:45: error: choice-domain: z is no attribute of e"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.files)
			if c.setup != nil {
				c.setup(dir)
			}
			_, err := runIn(t, dir, Config{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			var se *Error
			if errors.As(err, &se) && !strings.HasPrefix(se.At, dir) {
				t.Errorf("error at %q, not in %s", se.At, dir)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) > 0 {
				t.Errorf("%d files written", len(ents))
			}
		})
	}
}

func TestRunSouffleForms(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl A, B(x: number)
.output A, B
.decl E(x: symbol, y: symbol) eqrel
.output E
A(to_number(x)) :- x = 7.5 ; x = -1.5 ; x = 0x10 - 0.5 ; x = --2.
B(n) :- n = count : { A(_) }.
E("a", "b"). E("b", "c").
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"A.csv": "-1\n15\n2\n7\n", "B.csv": "4\n",
		"E.csv": "a\ta\na\tb\na\tc\nb\ta\nb\tb\nb\tc\nc\ta\nc\tb\nc\tc\n",
	} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestBadPattern(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl s(x: symbol)
s("foobar"). s("fob").
.decl a, b, c(x: symbol)
.output a, b, c
a(x) :- s(x), match("fo{2}b.*", x).
b(x) :- s(x), !match("fo{x}b.*", x).
c(x) :- s(x), match("b.*[", x).
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.csv": "foobar\n", "b.csv": "", "c.csv": ""} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestConversions(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl f(x: float)
.decl n(x: number)
.decl u(x: unsigned)
.output f, n, u
f(to_float(3)). f(itof(2) + 0.5).
n(ftoi(2.75)). n(to_number(-2.5)).
u(to_unsigned(7)).
.decl s(x: symbol)
.output s
s("pi:" + to_string(3.14)).
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"f.csv": "2.5\n3\n", "n.csv": "-2\n2\n", "u.csv": "7\n", "s.csv": "pi:3.140000\n"} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestOperatorWords(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl r(name: symbol, x: number)
.output r
r("and-or", 12 band 10 bor 1).
r("shift", 1 bshl 4 + 1).
r("xor", 6 bxor 3).
r("not", bnot 0).
r("logic", 1 land 0 lor 1).
r("lnot", lnot (2 band 1)).
r("shru", -1 bshru 60).
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	want := "and-or\t9\nlnot\t1\nlogic\t1\nnot\t-1\nshift\t32\nshru\t15\nxor\t5\n"
	if got := readOut(t, filepath.Join(dir, "out", "r.csv")); got != want {
		t.Errorf("r.csv = %q, want %q", got, want)
	}
}

func TestRange(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl up, down, even(x: number)
.decl f(x: float)
.output up, down, even, f
up(x) :- x = range(1, 4).
down(x) :- range(3, 0) = x.
even(n) :- n = count : { i = range(0, 10), i % 2 = 0 }.
f(x) :- x = range(1.5, -0.6, -0.5).
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"up.csv": "1\n2\n3\n", "down.csv": "1\n2\n3\n", "even.csv": "5\n", "f.csv": "-0.5\n0\n0.5\n1\n1.5\n",
	} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestFloatDivision(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.decl h(x: float)
.decl n(x: number)
.output h, n
h(64.0).
h(x / 2) :- h(x), x >= 0.5.
n(7 / 2).
n(x / 2) :- x = 9.
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"h.csv": "0.25\n0.5\n1\n16\n2\n32\n4\n64\n8\n", "n.csv": "3\n4\n",
	} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestOutputParams(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl": `.decl e(from: symbol, to: number)
.input e
.output e(delimiter=",", headers=true)
.decl none(x: number)
.input none
.output none
`,
		"facts/e.facts":    "a\t1\nb\t2\n",
		"facts/none.facts": "",
	})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"e.csv": "from,to\na,1\nb,2\n", "none.csv": ""} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestMagicValidated(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.pragma "magic-transform" "*"
.decl p(x: number)
.output p
p(x) :- p(y).
`})
	if _, err := runIn(t, dir, Config{}); err == nil || !strings.Contains(err.Error(), "prog.dl:4:3") {
		t.Fatalf("error %v, want the unsafe head variable at prog.dl:4:3", err)
	}
}

// TestMixedDialects checks a Soufflé program that includes a file of
// drumql's dialect: relations shared by name, a bare constant a symbol,
// and an arity that differs from the declaration an error.
func TestMixedDialects(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"prog.dl": `.decl edge(x: symbol, y: symbol)
.decl reach(x: symbol, y: symbol)
.output reach
#include "rules.dl"
edge("a", "b").
`,
		"rules.dl": "% drumql's dialect\nedge(b, c).\nreach(X, Y) :- edge(X, Y).\nreach(X, Z) :- reach(X, Y), edge(Y, Z).\n",
	})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	if got, want := readOut(t, filepath.Join(dir, "out", "reach.csv")), "a\tb\na\tc\nb\tc\n"; got != want {
		t.Errorf("reach.csv = %q, want %q", got, want)
	}
	write(t, dir, map[string]string{"rules.dl": "edge(a, b, c).\n"})
	if _, err := runIn(t, dir, Config{}); err == nil || !strings.Contains(err.Error(), "rules.dl:1:1: error: relation edge has 2 attributes") {
		t.Errorf("error %v, want the arity of edge at rules.dl:1:1", err)
	}
}
