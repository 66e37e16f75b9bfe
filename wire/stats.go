package wire

import "github.com/drumql/drumql/store"

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
	return st
}
