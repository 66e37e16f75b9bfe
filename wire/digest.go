package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/drumql/drumql/store"
)

// Digest is what `drumql stats --digest` prints: store.DerivedDigest of a
// store's derived facts.
type Digest struct {
	DerivedFacts     int    `json:"derived_facts"`
	Digest           string `json:"digest"`
	ConfidenceDigest string `json:"confidence_digest"`
}

// NewDigest is the Digest of dg.
func NewDigest(dg store.DerivedDigest) Digest {
	return Digest{DerivedFacts: dg.Facts, Digest: dg.Digest, ConfidenceDigest: dg.ConfidenceDigest}
}

// Write writes d on w in format: json, or for a person three lines
// ("derived facts: N", "digest: sha256:…", "confidence digest:
// sha256:…").
func (d Digest) Write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	_, err := fmt.Fprintf(w, "derived facts: %d\ndigest: %s\nconfidence digest: %s (confidences to 6 decimals)\n",
		d.DerivedFacts, d.Digest, d.ConfidenceDigest)
	return err
}

// WriteDigest computes store.DigestDerived of st and writes it on w in
// format (Digest.Write).
func WriteDigest(ctx context.Context, st store.Store, w io.Writer, format string) error {
	dg, err := store.DigestDerived(ctx, st)
	if err != nil {
		return err
	}
	return NewDigest(dg).Write(w, format)
}
