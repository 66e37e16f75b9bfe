package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"strconv"
)

// DerivedDigest is an order-independent checksum of a store's derived
// facts, by name: two stores whose derived facts are the same (whatever
// ids their dictionaries gave the names, in whatever order the facts were
// written) have the same digests, and a fact more, less or changed gives
// other ones (but for a collision: the sum of SHA-256 hashes below, which
// guards against accidents, not against someone forging facts).
type DerivedDigest struct {
	// Facts is the number of derived facts.
	Facts int
	// Digest is "sha256:" and the hex digest of the facts: each fact is
	// encoded as its relation's name and its arity and arguments' names,
	// each name prefixed by its length in bytes (a uvarint); the SHA-256
	// hashes of the encodings are added as 256-bit little-endian numbers
	// modulo 2^256, and the digest is the SHA-256 hash of
	// "drumql-derived-v1", Facts (a uvarint) and that sum.
	Digest string
	// ConfidenceDigest is the same with each fact's confidence appended
	// to its encoding, after a zero byte, as the decimal of the confidence
	// rounded to 6 decimals ("0.807500"): equal digests mean confidences
	// within 1e-6 of each other (a difference can still be below 1e-6 when
	// two values round apart: compare the facts themselves then). The
	// prefix of the final hash is "drumql-derived-conf-v1".
	ConfidenceDigest string
}

// digestSum adds the SHA-256 hashes of encodings modulo 2^256.
type digestSum [4]uint64

// add adds the hash of b.
func (s *digestSum) add(b []byte) {
	h := sha256.Sum256(b)
	var c uint64
	for i := range s {
		s[i], c = bits.Add64(s[i], binary.LittleEndian.Uint64(h[8*i:]), c)
	}
}

// digest is "sha256:" and the hex hash of tag, n and the sum.
func (s *digestSum) digest(tag string, n int) string {
	b := binary.AppendUvarint([]byte(tag), uint64(n))
	for _, x := range s {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// DigestDerived computes the DerivedDigest of st's derived facts. It
// reads them all once.
func DigestDerived(ctx context.Context, st Store) (DerivedDigest, error) {
	rels, err := st.Relations()
	if err != nil {
		return DerivedDigest{}, err
	}
	var facts, confs digestSum
	var dg DerivedDigest
	seen := map[ID]bool{}
	var b []byte
	for _, r := range rels {
		if r.Derived == 0 || seen[r.Rel] {
			continue
		}
		seen[r.Rel] = true // ScanDerived reads every arity of the relation
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				return DerivedDigest{}, err
			}
			if dg.Facts%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return DerivedDigest{}, err
				}
			}
			b = appendName(b[:0], r.Name)
			b = binary.AppendUvarint(b, uint64(len(d.Fact.Args)))
			for _, a := range d.Fact.Args {
				name, err := st.Name(a)
				if err != nil {
					return DerivedDigest{}, err
				}
				b = appendName(b, name)
			}
			facts.add(b)
			b = append(b, 0)
			b = strconv.AppendFloat(b, math.Round(float64(d.Confidence)*1e6)/1e6, 'f', 6, 64)
			confs.add(b)
			dg.Facts++
		}
	}
	dg.Digest = facts.digest("drumql-derived-v1", dg.Facts)
	dg.ConfidenceDigest = confs.digest("drumql-derived-conf-v1", dg.Facts)
	return dg, nil
}

// appendName appends name prefixed by its length.
func appendName(b []byte, name string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(name))), name...)
}
