// Package store is drumql's triple store: a symbol dictionary, base facts
// indexed relation-first, named splits, derived facts with confidence and
// provenance, and compact CSR snapshots for the miner and the reasoner.
//
// Two implementations satisfy Store: DB (Open), backed by Badger v4, and Mem
// (NewMemory), an in-memory twin with the same semantics. The conformance
// suite in store/storetest runs against both.
//
// # Key layout (DB)
//
// Every Badger key starts with a one-byte tag; ids are 4-byte big-endian,
// generations and sequence numbers 8-byte big-endian:
//
//	m<name>                 meta: format, mgen (last load generation),
//	                        mpending (load or retraction in flight), mnsym,
//	                        mderived, mdnext, mmat (record and change log),
//	                        mrules (the rule table of the visible derived
//	                        generation, when not its own), mlayer (the
//	                        layer of changes over it), mreclaim
//	                        (transient: set to flush the memtable)
//	n<name>      -> id      dictionary, name to id
//	s<id>        -> name    dictionary, id to name (dense: 0..mnsym-1)
//	F<rel><s><o>            binary base fact, subject order, empty value
//	R<rel><o><s>            binary base fact, object order, empty value
//	N<rel><k><a1>..<ak>     base fact of arity k != 2 (first-argument index)
//	C<rel><k>    -> count   base facts of rel with arity k
//	S<len><name><gen><chunk> -> triples   split entries in file order,
//	                        1024 s r o triples (12 bytes each) per chunk
//	P<name>      -> gen count         current generation of each split
//	D<gen><rel><k><args>  -> conf prov   derived facts of a generation
//	                        (of a layer: conf prov, or empty to delete)
//	E<gen><rel><k> -> count           derived counts of a generation
//	Q<table><id> -> rule    provenance rules of a generation, ids 0, 1, ...:
//	                        table is the generation's number, or the id
//	                        mrules names (from mdnext's sequence)
//	U<gen><seq>  -> keys    undo log of the load or retraction in flight
//	W<id><seq4>  -> bytes   record of the derived facts, in 64 KiB parts
//	L<id><rel><k><args> -> 0|1        change log: base fact removed (0) or
//	                        added (1) since the record was written
//
// Scans yield facts sorted by arity, then by arguments in index order.
// Derived values are the float32 confidence followed by the provenance: the
// rule and the body facts, uvarint-encoded. Since format 2 the rule is the
// uvarint id of an entry of the generation's rule table (the Q keys), and
// the confidence word has its sign bit set to say so; format 1 values hold
// the rule string inline and are still read.
//
// # Atomic loads
//
// Load resolves the batch first (interning into a private table, dropping
// facts already present, so loading the same data twice writes nothing and
// counts the facts as Skipped). It then commits, in order:
//
//  1. mpending = {generation g, dictionary size before, split names}, synced;
//  2. the undo log U<g>: the keys of the new facts (and the change log
//     entries the load overwrites, see below), flushed and synced;
//  3. the data: symbols, F/R/N keys and S<name><g> entries, written with a
//     WriteBatch (many transactions), flushed and synced;
//  4. one small transaction that sets mgen = g, the dictionary size, the
//     counters and the split pointers, and deletes mpending.
//
// Readers of counts, dictionary size and splits only see committed state.
// If the load fails or is canceled before step 4, it is rolled back at once:
// the keys in the undo log, the symbols with ids from the old dictionary
// size on, and the split entries of generation g are deleted; then their
// space is given back and the undo log dropped (below), then mpending is
// deleted. If the process dies instead, the next Open finds mpending and
// does the same rollback (or, when opened read-only, reports
// ErrIncomplete), so the store is exactly as before the load.
//
// Badger deletes a key by writing a deletion marker, and both take space
// until a compaction brings them together on the last level, which for
// markers that reached it may be never. So a rollback of more than a few
// MiB (and more than a 64th of the store) compacts the store: it drops
// the undo log with DropPrefix, which writes the memtable to a table,
// compacts every level into the last (Flatten), then writes again the
// first and the last key it wrote (the same deletion or value) and
// flushes them by setting and dropping mreclaim, and compacts again: that
// table spans every key the rollback wrote, so the last compaction
// rewrites every table holding them, and the store takes about what it
// took before the load. It needs as much free space as the store takes;
// with less, the space is left to Badger's compactions. A split in a batch replaces the split of the
// same name; old split generations are deleted after the commit, and the
// undo log dropped whole (DropPrefix, no deletion markers), or by the next
// Open.
//
// Retract takes the same steps under a generation of its own: its undo log
// lists the keys to put back (the removed F and N keys, which have empty
// values, and the change log entries it overwrites), step 3 deletes the F,
// R and N keys, and step 4 sets the counters. The dictionary and the splits
// are not touched, and rolling back puts every removed key back.
//
// # Derived facts
//
// ReplaceDerived writes the new facts under a fresh derived generation
// (allocated through mdnext), then flips mderived and the derived counters in
// one small transaction, then deletes the previous generation. Until the flip
// readers see the previous set; generations other than the visible one are
// garbage and are removed by the next Open. A read view (ReadView: one Badger
// read transaction, what drumql serve's versions read) sees the generation
// that was visible when it was taken: the previous generation, and a change
// log dropped whole, are deleted only once no open view reads them (in the
// background, as a writer); Badger keeps the old versions of the keys other
// writes replace for the views' transactions. ClearDerived flips to an empty
// generation. If ds holds a fact twice, the derivation with the higher
// confidence is kept (the first on ties). ReplaceDerivedSeq does the same
// for facts yielded one at a time (the reasoner's millions of derived facts
// go from its tables to Badger's write batches without a second copy in
// memory); it expects each fact once.
//
// UpdateDerived changes the visible generation in place when the update
// fits in one Badger transaction: the D keys it puts and deletes, the rule
// table entries it appends (the Q keys only grow; readers that cached a
// shorter table read it again when a value refers past it), the E counts
// and mmat, committed together. A record larger than one part is written
// first under its new id, garbage until the transaction points mmat at it.
// Renames of rule table entries (rules that moved in their file) are made
// in the transaction when they fit; more (a line removed near the top of a
// mined file moves tens of thousands of rules) are written first as the
// whole table renamed, under a new table id in write batches of their own,
// garbage until the transaction points mrules at it; the replaced table is
// dropped after the commit, once no read view reads it.
// An update that does not fit goes to a layer over the visible
// generation (badger_layer.go), as long as the layer, with it, holds at
// most a quarter of the visible facts: a generation of its own whose keys
// hide the generation's (an empty value deletes a fact), read through by
// every read, and named with its number of entries by mlayer. The new
// layer, the old one's entries merged with the update, is written in
// write batches under a new number, garbage until one transaction points
// mlayer at it with the counts, the rule table entries it adds and mmat;
// the old layer is dropped once no read view reads it. Later updates that
// fit in one transaction change the layer in place. An update that fits
// neither is merged with the visible facts, through the layer, into a new
// generation without one, streamed in key order with the rule table
// copied and extended, and flipped to like a replacement.
//
// # Record and change log
//
// ReplaceDerivedRecord stores an opaque record (the reasoner's description
// of the program) with the derived facts. Its parts are written under a
// new material id (allocated through mmat, which also holds the id, the
// record's length, the log's size and its overflow flag) before the flip
// to the new derived generation, and the flip points mmat at it: the
// record, the facts and an empty change log become visible together. While
// the derived facts have a record, Load and Retract log every base fact
// they add or remove under L<id> — its net change since the record: a fact
// logged the other way loses its entry (retracted, then loaded again, it is
// as the record saw it) — with undo log entries that restore the previous
// entry, and count the entries in mmat in their commit transaction.
// More than MaxChangeLog facts set the overflow flag instead, and the log
// is dropped. Derived writes without a record set mmat's id to 0: no log
// is kept. Records and logs of other ids are garbage removed by Open.
//
// # Processes and formats
//
// Badger holds an exclusive lock on the directory: a second Open of the same
// directory, from this or another process, fails at once with ErrInUse. A
// non-empty directory without a Badger manifest, or a Badger database without
// the drumql format key, is ErrNotStore; a newer format is ErrNewerFormat.
// A store is raised to the format of the first write that needs it (2: a
// derived write's rule table; 3: a record or a retraction; 4: a rule table
// under an id of its own, mrules; 5: a layer, mlayer), so a store that
// never used a feature stays readable by the builds before it.
//
// # Importers
//
// ReadDataset, ReadTSV, ReadNTriples and ReadPath turn files into a Batch.
// They tolerate CRLF line endings, a UTF-8 byte order mark and blank lines,
// and report every malformed line as file:line: reason in one *LoadError, in
// which case they return no batch, so nothing is loaded. TSV files are read
// with internal/tsv, the reader the parser's @import uses too; its package
// doc defines the format. MakeInductive turns a dataset batch into the
// inductive setting of the DRUM paper before it is loaded.
package store
