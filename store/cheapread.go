package store

import (
	"errors"
	"math"

	"github.com/dgraph-io/badger/v4"
)

// Staleness is what Materialised says about the derived facts being out of
// date, without the record or the changed facts themselves.
type Staleness struct {
	Record   bool // the derived facts have a record (MaterialState.Program != nil)
	Changes  int  // base facts changed since they were written (len(MaterialState.Changes))
	Overflow bool // more than MaxChangeLog base facts changed
}

// StalenessOf returns the Staleness of st. For a DB it reads nothing: the
// counts are kept in memory (Materialised reads the record, which for a
// mined program is megabytes). For other stores it is
// StalenessOfState(st.Materialised()).
func StalenessOf(st Store) (Staleness, error) {
	if d, ok := st.(*DB); ok {
		d.mu.RLock()
		defer d.mu.RUnlock()
		if d.closed {
			return Staleness{}, wrapf("store: materialised: %w", ErrClosed)
		}
		if d.mat.ID == 0 {
			return Staleness{}, nil
		}
		if d.mat.Overflow {
			return Staleness{Record: true, Overflow: true}, nil
		}
		return Staleness{Record: true, Changes: int(d.mat.Count)}, nil
	}
	ms, err := st.Materialised()
	if err != nil {
		return Staleness{}, err
	}
	return StalenessOfState(ms), nil
}

// StalenessOfState is the Staleness of what Materialised returned.
func StalenessOfState(ms MaterialState) Staleness {
	return Staleness{Record: ms.Program != nil, Changes: len(ms.Changes), Overflow: ms.Overflow}
}

// decodeOne decodes one derived value of generation gen read in txn. Its
// rule comes from the cached rule table when that holds it, and otherwise
// from a read of that one rule: a command that reads a few derived facts
// (explain) does not read a mined program's table of 100,000 rules.
func (d *DB) decodeOne(txn *badger.Txn, gen uint64, v []byte) (float32, Provenance, error) {
	conf, prov, ref, err := decodeDerivedValue(v)
	if err != nil || ref < 0 {
		return conf, prov, err
	}
	table, err := ruleTableOf(txn, gen)
	if err != nil {
		return 0, prov, err
	}
	d.rmu.Lock()
	if txn.ReadTs() >= d.rules.since && d.rules.ok && d.rules.table == table && ref < int64(len(d.rules.names)) {
		prov.Rule = d.rules.names[ref]
		d.rmu.Unlock()
		return conf, prov, nil
	}
	d.rmu.Unlock()
	if ref > math.MaxUint32 {
		return 0, prov, errCorrupt
	}
	rule, err := getValue(txn, dRuleKey(table, uint32(ref)))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, prov, errCorrupt
	}
	if err != nil {
		return 0, prov, err
	}
	prov.Rule = string(rule)
	return conf, prov, nil
}
