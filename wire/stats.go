package wire

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/drumql/drumql/store"
)

// Stats is what a store holds, as `drumql stats --format json` writes it.
type Stats struct {
	Entities     int            `json:"entities"`
	Symbols      int            `json:"symbols"`
	Relations    int            `json:"relations"`
	BaseFacts    int            `json:"base_facts"`
	DerivedFacts int            `json:"derived_facts"`
	PerRelation  []Relation     `json:"per_relation"`
	Splits       map[string]int `json:"splits"`
	// DiskBytes and ReclaimableBytes are the store's size on disk and the
	// part of it that compactions free (absent for an in-memory store).
	DiskBytes        *int64 `json:"disk_bytes,omitempty"`
	ReclaimableBytes *int64 `json:"reclaimable_bytes,omitempty"`
	// Generation counts the loads and retractions that changed the
	// store's base facts (absent for an in-memory store): the quick start
	// keeps it to tell a store it made, unchanged, from one with facts
	// added since.
	Generation *uint64 `json:"generation,omitempty"`
	// Image is the store's materialisation image, absent when it has none.
	Image *Image `json:"image,omitempty"`
	// Layer is the layer of changes over the derived facts, absent when
	// there is none.
	Layer *Layer `json:"layer,omitempty"`
}

// Layer is the layer of changes that updates wrote over the derived facts
// (store.LayerStatus): its entries (facts added, changed and deleted), and
// the count past which an update merges it into a new generation.
type Layer struct {
	Entries int `json:"entries"`
	MergeAt int `json:"merge_at"`
}

// String is the layer's line in stats.
func (l *Layer) String() string {
	return fmt.Sprintf("%d changes over the derived facts (merged into them past %d)", l.Entries, l.MergeAt)
}

// Image is a store's materialisation image, as stats shows it: its size,
// the derived generation and materialisation it is of, and whether that
// is the store's current one ("current", "stale" or "corrupt").
type Image struct {
	Bytes      int64  `json:"bytes"`
	Generation uint64 `json:"derived_generation"`
	Material   uint64 `json:"materialisation"`
	State      string `json:"state"`
}

// NewImage is the Image of s.
func NewImage(s store.ImageStatus) *Image {
	im := &Image{Bytes: s.Size, Generation: s.Header.DerivedGen, Material: s.Header.Material, State: "stale"}
	switch {
	case s.Corrupt != nil:
		im.State = "corrupt"
	case s.Current:
		im.State = "current"
	}
	return im
}

// String is the image's line in stats and verify.
func (im *Image) String() string {
	return fmt.Sprintf("%s, of derived generation %d, materialisation %d: %s", humanBytes(im.Bytes), im.Generation, im.Material, im.State)
}

// NewStats is the summary s of a store ([store.Summarize]); its
// per_relation is an array even when the store has no relation.
func NewStats(s *store.Summary) *Stats {
	st := &Stats{Entities: s.Entities, Symbols: s.Symbols, Relations: len(s.Relations),
		BaseFacts: s.BaseFacts, DerivedFacts: s.DerivedFacts, Splits: s.Splits, PerRelation: []Relation{}}
	for _, r := range s.Relations {
		st.PerRelation = append(st.PerRelation, NewRelation(r))
	}
	if s.Disk != nil {
		bytes, reclaimable := s.Disk.Bytes, s.Disk.Reclaimable
		st.DiskBytes, st.ReclaimableBytes = &bytes, &reclaimable
	}
	st.Generation = s.Generation
	if s.Image != nil {
		st.Image = NewImage(*s.Image)
	}
	if s.Layer != nil {
		st.Layer = &Layer{Entries: s.Layer.Entries, MergeAt: s.Layer.MergeAt}
	}
	return st
}

// Write writes the summary as drumql stats prints it: in format json, an
// indented JSON document; in any other, the table of WriteTable.
func (s *Stats) Write(w io.Writer, format, db string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return s.WriteTable(w, db)
}

// WriteTable writes the summary as `drumql stats` prints it for a person:
// the store's name (db) and its counts, its size on disk when known, its
// image and its layer when it has them, the splits by name, then one row
// per relation (name, arity, base and derived facts).
func (s *Stats) WriteTable(w io.Writer, db string) error {
	hw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(hw, "store:\t%s\nentities:\t%d\nrelations:\t%d\nbase facts:\t%d\nderived facts:\t%d\n",
		db, s.Entities, s.Relations, s.BaseFacts, s.DerivedFacts)
	if s.DiskBytes != nil {
		fmt.Fprintf(hw, "on disk:\t%s (%s reclaimable)\n", humanBytes(*s.DiskBytes), humanBytes(*s.ReclaimableBytes))
	}
	if s.Image != nil {
		fmt.Fprintf(hw, "image:\t%s\n", s.Image)
	}
	if s.Layer != nil {
		fmt.Fprintf(hw, "layer:\t%s\n", s.Layer)
	}
	if len(s.Splits) > 0 {
		fmt.Fprint(hw, "splits:\t")
		for i, name := range slices.Sorted(maps.Keys(s.Splits)) {
			if i > 0 {
				fmt.Fprint(hw, " ")
			}
			fmt.Fprintf(hw, "%s=%d", name, s.Splits[name])
		}
		fmt.Fprintln(hw)
	}
	hw.Flush()
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw)
	width := len("relation")
	for _, r := range s.PerRelation {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(bw, "%-*s  %5s  %9s  %9s\n", width, "relation", "arity", "base", "derived")
	for _, r := range s.PerRelation {
		fmt.Fprintf(bw, "%-*s  %5d  %9d  %9d\n", width, r.Name, r.Arity, r.Base, r.Derived)
	}
	return bw.Flush()
}

// humanBytes formats a byte count with a binary unit.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
