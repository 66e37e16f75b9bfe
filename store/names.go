package store

import "slices"

// RelationNames returns the names of st's relations, in the order
// st.Relations gives them.
func RelationNames(st Store) ([]string, error) {
	rs, err := st.Relations()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return names, nil
}

// HasSplit reports whether st has a split of that name.
func HasSplit(st Store, name string) (bool, error) {
	names, err := st.Splits()
	return slices.Contains(names, name), err
}
