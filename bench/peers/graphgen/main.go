// Command graphgen writes seeded random directed graphs G(n, p) as inputs of
// the peer benchmarks: for each relation, each ordered pair of distinct nodes
// in 0..n-1 is an edge with probability p, drawn with geometric skips so a
// sparse graph costs its edges, not n². The same flags and seed give the
// same bytes.
//
//	graphgen -n 5000 -seed 1 -out DIR edge=0.001 [rel=p ...]
//
// For each relation REL it writes DIR/REL.facts (Soufflé's input: two
// tab-separated numbers a line) and appends to DIR/facts.tsv (drumql's
// load format: head, relation, tail), and prints "REL EDGES".
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int64("n", 1000, "number of nodes")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", ".", "output directory")
	flag.Parse()
	if err := run(*n, *seed, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "graphgen:", err)
		os.Exit(1)
	}
}

func run(n int64, seed uint64, out string, specs []string) error {
	if len(specs) == 0 {
		return fmt.Errorf("no relation given (REL=P)")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	tsv, err := os.Create(filepath.Join(out, "facts.tsv"))
	if err != nil {
		return fmt.Errorf("facts.tsv: %w", err)
	}
	defer tsv.Close()
	tw := bufio.NewWriterSize(tsv, 1<<20)
	for i, spec := range specs {
		name, ps, ok := strings.Cut(spec, "=")
		p, err := strconv.ParseFloat(ps, 64)
		if !ok || err != nil || p <= 0 || p >= 1 || name == "" {
			return fmt.Errorf("bad relation %q: want REL=P with 0 < P < 1", spec)
		}
		m, err := writeRelation(n, p, rand.New(rand.NewPCG(seed, uint64(i))), out, name, tw)
		if err != nil {
			return err
		}
		fmt.Printf("%s %d\n", name, m)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("facts.tsv: %w", err)
	}
	return tsv.Close()
}

// writeRelation draws G(n, p) without self loops: the gap to the next edge
// in the row-major order of the n(n-1) candidate pairs is geometric.
func writeRelation(n int64, p float64, rng *rand.Rand, out, name string, tw *bufio.Writer) (int64, error) {
	f, err := os.Create(filepath.Join(out, name+".facts"))
	if err != nil {
		return 0, fmt.Errorf("%s.facts: %w", name, err)
	}
	defer f.Close()
	fw := bufio.NewWriterSize(f, 1<<20)
	logq := math.Log1p(-p)
	total := n * (n - 1)
	var m int64
	for k := int64(-1); ; {
		skip := int64(math.Floor(math.Log1p(-rng.Float64()) / logq))
		k += 1 + skip
		if skip < 0 || k >= total {
			break
		}
		a, b := k/(n-1), k%(n-1)
		if b >= a {
			b++
		}
		fmt.Fprintf(fw, "%d\t%d\n", a, b)
		fmt.Fprintf(tw, "%d\t%s\t%d\n", a, name, b)
		m++
	}
	if err := fw.Flush(); err != nil {
		return 0, fmt.Errorf("%s.facts: %w", name, err)
	}
	return m, f.Close()
}
