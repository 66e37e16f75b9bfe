// Command gen-kg writes a generated knowledge graph for the scaling
// benchmark (bench/scale.sh) in the DRUM dataset layout: N people in
// households of four (a couple and two children) living in cities of 20
// countries, with planted rules and two hub relations, gender (two values)
// and citizen_of (20 countries), the kind every real graph has. Names are
// p0000001, c000001, k00 (people, cities, countries), unique at any size.
// The output is a pure function of -people and -seed.
//
//	go run ./examples/gen-kg -people 10000 -out /tmp/kg-1e4
//
// Planted rules (each head's facts are split 80/10/10 into train, valid
// and test; every other relation is background in facts.txt):
//
//	wife(A, B) :- husband(B, A).
//	mother(A, B) :- wife(A, C), father(C, B).
//	citizen_of(A, B) :- born_in(A, C), city_in(C, B).   (5% noise)
//	sibling(A, B) :- father(C, A), father(C, B).
//
// -tail R adds R more background relations, tail0000 … (the long tail of
// a real graph's relations: Wikidata has thousands of properties, most of
// them with few facts), each with -tail-facts facts between random people;
// they are drawn after everything else from a generator of their own, so
// the rest of the output is the same with or without them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// relations is the relation list, background first.
var relations = []string{"husband", "father", "gender", "born_in", "city_in", "wife", "mother", "citizen_of", "sibling"}

// heads are the relations whose facts are split into train, valid and test.
var heads = map[string]bool{"wife": true, "mother": true, "citizen_of": true, "sibling": true}

const countries = 20

func main() {
	people := flag.Int("people", 10000, "number of people (rounded up to a multiple of 4)")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "", "output folder (required)")
	tail := flag.Int("tail", 0, "number of long-tail background relations")
	tailFacts := flag.Int("tail-facts", 50, "facts per long-tail relation")
	flag.Parse()
	if *out == "" || *people < 4 {
		fmt.Fprintln(os.Stderr, "usage: gen-kg -people N -out DIR [-seed S]")
		os.Exit(2)
	}
	if err := generate(*out, (*people+3)/4*4, *seed, *tail, *tailFacts); err != nil {
		fmt.Fprintln(os.Stderr, "gen-kg:", err)
		os.Exit(1)
	}
}

// generate writes the dataset of n people to dir, with tail long-tail
// relations of tailFacts facts each.
func generate(dir string, n int, seed uint64, tail, tailFacts int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]*bufio.Writer{}
	var closers []*os.File
	for _, name := range []string{"facts", "train", "valid", "test", "entities", "relations"} {
		f, err := os.Create(filepath.Join(dir, name+".txt"))
		if err != nil {
			return err
		}
		closers = append(closers, f)
		files[name] = bufio.NewWriterSize(f, 1<<20)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b67))
	cities := max(n/100, countries)
	person := func(i int) string { return fmt.Sprintf("p%07d", i) }
	city := func(i int) string { return fmt.Sprintf("c%06d", i) }
	country := func(i int) string { return fmt.Sprintf("k%02d", i) }
	emit := func(h, r, t string) {
		split := "facts"
		if heads[r] {
			switch x := rng.IntN(10); {
			case x == 0:
				split = "valid"
			case x == 1:
				split = "test"
			default:
				split = "train"
			}
		}
		fmt.Fprintf(files[split], "%s\t%s\t%s\n", h, r, t)
	}
	for i := range n {
		fmt.Fprintln(files["entities"], person(i))
	}
	for i := range cities {
		fmt.Fprintln(files["entities"], city(i))
	}
	for i := range countries {
		fmt.Fprintln(files["entities"], country(i))
	}
	fmt.Fprintln(files["entities"], "male")
	fmt.Fprintln(files["entities"], "female")
	for _, r := range relations {
		fmt.Fprintln(files["relations"], r)
	}
	tailName := func(i int) string { return fmt.Sprintf("tail%04d", i) }
	for i := range tail {
		fmt.Fprintln(files["relations"], tailName(i))
	}
	cityCountry := make([]int, cities)
	for c := range cities {
		cityCountry[c] = c % countries
		emit(city(c), "city_in", country(cityCountry[c]))
	}
	for h := 0; h < n; h += 4 {
		f, m, k1, k2 := person(h), person(h+1), person(h+2), person(h+3)
		c := rng.IntN(cities)
		emit(f, "husband", m)
		emit(m, "wife", f)
		emit(f, "gender", "male")
		emit(m, "gender", "female")
		for _, k := range []string{k1, k2} {
			emit(f, "father", k)
			emit(m, "mother", k)
			if rng.IntN(2) == 0 {
				emit(k, "gender", "male")
			} else {
				emit(k, "gender", "female")
			}
		}
		emit(k1, "sibling", k2)
		emit(k2, "sibling", k1)
		for _, p := range []string{f, m, k1, k2} {
			emit(p, "born_in", city(c))
			k := cityCountry[c]
			if rng.IntN(20) == 0 {
				k = rng.IntN(countries)
			}
			emit(p, "citizen_of", country(k))
		}
	}
	trng := rand.New(rand.NewPCG(seed, 0x7461696c))
	for i := range tail {
		for range tailFacts {
			emit(person(trng.IntN(n)), tailName(i), person(trng.IntN(n)))
		}
	}
	for i, name := range []string{"facts", "train", "valid", "test", "entities", "relations"} {
		if err := files[name].Flush(); err != nil {
			return err
		}
		if err := closers[i].Close(); err != nil {
			return err
		}
	}
	return nil
}
