package store

import (
	"context"

	"github.com/dgraph-io/badger/v4"
)

// Snapshot implements Store with one key-only pass over the F key space.
func (d *DB) Snapshot(ctx context.Context) (*Snapshot, error) {
	d.mu.RLock()
	nsym := len(d.dict.names)
	counts := make(map[ID]int)
	for ra, n := range d.base {
		if ra.Arity == 2 {
			counts[ra.Rel] = n
		}
	}
	d.mu.RUnlock()
	sb := &snapBuilder{nsym: nsym}
	err := d.view(func(txn *badger.Txn) error {
		prefix := []byte{tagFwd}
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
		defer it.Close()
		cur := ID(0)
		var es []uint32
		n := 0
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			k := it.Item().Key()
			if len(k) != 13 {
				return errCorrupt
			}
			rel := getID(k[1:])
			if es == nil || rel != cur {
				if es != nil {
					sb.edges[len(sb.edges)-1] = es
				}
				cur = rel
				es = make([]uint32, 0, 2*counts[rel])
				sb.rels = append(sb.rels, rel)
				sb.edges = append(sb.edges, nil)
			}
			es = append(es, getID(k[5:]), getID(k[9:]))
			if n++; n%(1<<16) == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		if es != nil {
			sb.edges[len(sb.edges)-1] = es
		}
		return nil
	})
	if err != nil {
		return nil, wrapf("store: snapshot: %w", err)
	}
	snap, err := sb.build(ctx)
	if err != nil {
		return nil, wrapf("store: snapshot: %w", err)
	}
	return snap, nil
}
