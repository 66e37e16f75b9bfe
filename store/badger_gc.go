package store

import (
	"encoding/binary"

	"github.com/dgraph-io/badger/v4"
)

// collectGarbage removes derived generations other than the visible one
// and its layer, and rule tables other than its,
// records and change logs other than the current ones (and the current
// log if it overflowed), undo logs, and split generations other than the
// current ones.
func (d *DB) collectGarbage() error {
	var garbage [][]byte
	keep := map[byte]uint64{tagDerived: d.dgen, tagDCount: d.dgen, tagDRule: d.rtable, tagRecord: d.mat.ID, tagLog: d.mat.ID}
	if d.mat.Overflow {
		keep[tagLog] = 0 // no log has id 0
	}
	err := d.bdb.View(func(txn *badger.Txn) error {
		// Namespaces of generations and material ids: seek from one to the next.
		for _, tag := range []byte{tagDerived, tagDCount, tagDRule, tagRecord, tagLog} {
			prefix := []byte{tag}
			seek := prefix
			for {
				var gen uint64
				found, err := scanPrefix(txn, prefix, seek, false, func(k, _ []byte) (bool, error) {
					if len(k) < 9 {
						return false, errCorrupt
					}
					gen = binary.BigEndian.Uint64(k[1:])
					return false, nil
				})
				if err != nil {
					return err
				}
				if found { // iteration ended: no more keys
					break
				}
				if gen != keep[tag] && (tag != tagDerived || gen != d.layer.gen || gen == 0) {
					garbage = append(garbage, binary.BigEndian.AppendUint64([]byte{tag}, gen))
				}
				if gen == ^uint64(0) {
					break
				}
				seek = binary.BigEndian.AppendUint64([]byte{tag}, gen+1)
			}
		}
		// Split generations.
		seek := []byte{tagSplit}
		for {
			var name string
			var gen uint64
			found, err := scanPrefix(txn, []byte{tagSplit}, seek, false, func(k, _ []byte) (bool, error) {
				var err error
				name, gen, _, err = decodeSplitKey(k)
				return false, err
			})
			if err != nil {
				return err
			}
			if found {
				break
			}
			if ptr, ok := d.splits[name]; !ok || ptr.gen != gen {
				garbage = append(garbage, splitPrefix(name, gen))
			}
			seek = splitPrefix(name, gen+1)
		}
		return nil
	})
	if err != nil {
		return err
	}
	garbage = append(garbage, []byte{tagUndo})
	return d.dropPrefixes(garbage...)
}
