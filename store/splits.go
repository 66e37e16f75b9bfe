package store

import "errors"

// ReadPaths reads the triple files or dataset folders of paths
// ([ReadPath]) into one batch, in order. When any of them cannot be read,
// it returns no batch and the errors of all of them, joined.
func ReadPaths(paths []string) (*Batch, error) {
	var all Batch
	var errs []error
	for _, p := range paths {
		b, err := ReadPath(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all.Append(b)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &all, nil
}

// Append appends the symbols, triples, facts and splits of b to dst.
func (dst *Batch) Append(b *Batch) {
	dst.Symbols = append(dst.Symbols, b.Symbols...)
	dst.Graph = append(dst.Graph, b.Graph...)
	dst.Facts = append(dst.Facts, b.Facts...)
	for name, ts := range b.Splits {
		if dst.Splits == nil {
			dst.Splits = map[string][]NamedTriple{}
		}
		dst.Splits[name] = append(dst.Splits[name], ts...)
	}
}

// SplitChange is a split that a load replaces with other triples: its
// name, the number of triples the store holds and the number the load
// brings.
type SplitChange struct {
	Name     string
	Old, New int
}

// ReplacedSplits lists, sorted by name, the splits of b that st already
// holds with other triples (other ones, or in another order): a load
// replaces a split whole, and whoever loads should hear that the old one is
// gone.
func ReplacedSplits(st Store, b *Batch) ([]SplitChange, error) {
	names, err := st.Splits()
	if err != nil {
		return nil, err
	}
	var out []SplitChange
	for _, name := range names {
		ts, ok := b.Splits[name]
		if !ok {
			continue
		}
		n, same := 0, true
		for t, err := range st.Split(name) {
			if err != nil {
				return nil, err
			}
			if n >= len(ts) {
				same = false
			} else if same {
				s, err1 := st.Name(t.S)
				r, err2 := st.Name(t.R)
				o, err3 := st.Name(t.O)
				if err := errors.Join(err1, err2, err3); err != nil {
					return nil, err
				}
				same = ts[n] == NamedTriple{S: s, R: r, O: o}
			}
			n++
		}
		if !same || n != len(ts) {
			out = append(out, SplitChange{name, n, len(ts)})
		}
	}
	return out, nil
}
