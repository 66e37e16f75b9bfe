// Command proofsum prints the number of a store's derived facts and an
// order-independent checksum of them with their proofs: each fact's
// relation and arguments by name, its confidence, its proof's rule
// reference and body facts. Two stores with the same derived facts and
// proofs (whatever ids, generations or rule tables hold them) print the
// same line; `drumql stats --digest` covers the facts and confidences
// only. It opens the store read-only.
//
//	go run ./bench/proofsum -db fb.db
//
// With -against OTHER it compares instead: each derived fact of the store
// with OTHER's, and where their proofs differ, whether they are of equal
// value (see compare).
//
//	go run ./bench/proofsum -db updated.db -against scratch.db
//
// With -sample N it prints instead N derived facts chosen at random with
// -seed, one a line, as `drumql explain` takes them (bench/pinned.sh times
// their explanations).
//
//	go run ./bench/proofsum -db fb.db -sample 20 -seed 1
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/drumql/drumql/store"
)

func main() {
	dir := flag.String("db", "drumql.db", "the store")
	against := flag.String("against", "", "another store to compare the derived facts and proofs with")
	show := flag.Int("show", 10, "with -against, the differences that are not ties to print")
	nsample := flag.Int("sample", 0, "print this many derived facts chosen at random instead")
	seed := flag.Uint64("seed", 1, "with -sample, the seed of the choice")
	flag.Parse()
	if err := run(*dir, *against, *show, *nsample, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "proofsum:", err)
		os.Exit(1)
	}
}

func run(dir, against string, show, nsample int, seed uint64) error {
	db, err := store.Open(dir, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	if nsample != 0 {
		return sample(os.Stdout, db, nsample, seed)
	}
	if against != "" {
		other, err := store.Open(against, store.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		defer other.Close()
		d, err := compare(db, other, show)
		if err == nil {
			fmt.Println(d)
		}
		return err
	}
	rels, err := db.Relations()
	if err != nil {
		return err
	}
	var sum [4]uint64
	n := 0
	var sb strings.Builder
	for _, r := range rels {
		for d, err := range db.ScanDerived(r.Rel) {
			if err != nil {
				return err
			}
			sb.Reset()
			if err := writeFact(&sb, db, d.Fact); err != nil {
				return err
			}
			sb.WriteString(" " + strconv.FormatFloat(float64(d.Confidence), 'g', -1, 32) + " " + strconv.Quote(d.Prov.Rule))
			for _, b := range d.Prov.Body {
				sb.WriteByte(' ')
				if err := writeFact(&sb, db, b); err != nil {
					return err
				}
			}
			h := sha256.Sum256([]byte(sb.String()))
			var c uint64
			for i := range sum {
				sum[i], c = bits.Add64(sum[i], binary.LittleEndian.Uint64(h[8*i:]), c)
			}
			n++
		}
	}
	var b []byte
	for _, x := range sum {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	fmt.Printf("%d derived facts, proofs sha256:%x\n", n, sha256.Sum256(b))
	return nil
}

// writeFact writes f's relation and arguments by name, each quoted.
func writeFact(sb *strings.Builder, db *store.DB, f store.Fact) error {
	for i, id := range append([]store.ID{f.Rel}, f.Args...) {
		name, err := db.Name(id)
		if err != nil {
			return err
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Quote(name))
	}
	return nil
}
