package store

import "context"

// Summary is what a store holds, counted: its symbols, relations, facts,
// splits and, for a store on disk, its size.
type Summary struct {
	// Entities is the number of entities of the graph (symbols that are
	// the subject or object of a binary base fact); Symbols counts every
	// symbol of the dictionary.
	Entities, Symbols int
	// Relations lists the relations with their fact counts, as
	// [Store.Relations] returns them.
	Relations []RelationStats
	// BaseFacts and DerivedFacts are the facts of all relations.
	BaseFacts, DerivedFacts int
	// Splits maps each named split to its number of triples.
	Splits map[string]int
	// Disk is the store's size on disk, nil for a store that keeps none
	// (in memory).
	Disk *DiskUsage
	// Generation counts the committed loads and retractions that changed
	// the base facts, the dictionary or the splits (DB.Generation); nil
	// for a store that keeps none (in memory). Equal generations: the
	// same base facts.
	Generation *uint64
	// Image is the store's materialisation image (DB.Image, its checksum
	// not checked), nil when it has none.
	Image *ImageStatus
	// Layer is the layer of changes over the derived facts (DB.Layer),
	// nil when there is none.
	Layer *LayerStatus
}

// Summarize counts what st holds. It reads every split, so it takes time in
// proportion to their size.
func Summarize(ctx context.Context, st Store) (*Summary, error) {
	rels, err := st.Relations()
	if err != nil {
		return nil, err
	}
	n, err := st.NumSymbols()
	if err != nil {
		return nil, err
	}
	snap, err := st.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Entities: len(snap.Entities), Symbols: n, Relations: rels, Splits: map[string]int{}}
	for _, r := range rels {
		sum.BaseFacts += r.Base
		sum.DerivedFacts += r.Derived
	}
	names, err := st.Splits()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		k := 0
		for _, err := range st.Split(name) {
			if err != nil {
				return nil, err
			}
			k++
		}
		sum.Splits[name] = k
	}
	if du, ok := st.(interface {
		DiskUsage() (DiskUsage, error)
	}); ok {
		u, err := du.DiskUsage()
		if err != nil {
			return nil, err
		}
		sum.Disk = &u
	}
	if g, ok := st.(interface{ Generation() (uint64, error) }); ok {
		n, err := g.Generation()
		if err != nil {
			return nil, err
		}
		sum.Generation = &n
	}
	if im, ok := st.(interface {
		Image(check bool) (ImageStatus, error)
	}); ok {
		s, err := im.Image(false)
		if err != nil {
			return nil, err
		}
		if s.Present {
			sum.Image = &s
		}
	}
	if l, ok := st.(interface{ Layer() LayerStatus }); ok {
		if s := l.Layer(); s.Entries > 0 {
			sum.Layer = &s
		}
	}
	return sum, nil
}
