package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
)

// ErrCorrupt is matched (errors.Is) by every CorruptError.
var ErrCorrupt = errors.New("store: corrupt")

// CorruptError reports a damaged store: a table whose checksum does not
// match, a truncated file, an unreadable MANIFEST or value log, or keys and
// values that do not decode. It matches ErrCorrupt.
type CorruptError struct {
	Dir  string // the store's directory
	File string // the damaged file, relative to Dir; empty when unknown
	What string // what is wrong
}

// Error implements error: "the store at DIR is corrupt (FILE, WHAT)".
func (e *CorruptError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("the store at %s is corrupt (%s)", e.Dir, e.What)
	}
	return fmt.Sprintf("the store at %s is corrupt (%s, %s)", e.Dir, e.File, e.What)
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// corrupt builds a CorruptError for file in dir.
func corrupt(dir, file, what string) error {
	return &CorruptError{Dir: dir, File: file, What: strings.TrimSpace(what)}
}

// tableChecks counts what checkTables did: the tables checked, and those
// (and their bytes) whose every block checksum was verified.
type tableChecks struct {
	Tables, Full int
	FullBytes    int64
}

// checkTables opens the MANIFEST of the store in dir and every table it
// lists, outside Badger, so that damage is reported as a CorruptError
// instead of a panic in one of Badger's goroutines (which no caller can
// recover), or a block that Badger's reads would silently skip (its
// iterators end at a block whose checksum does not match). Every table's
// footer and index (checksummed too) are read. With all, every block's
// checksum of every table is verified too; otherwise only those of the
// tables VerifiedFile does not list with their file's current stamp. The
// tables verified are then recorded in VerifiedFile (when the directory is
// writable; a failed write only means a full check next time).
func checkTables(dir string, bo badger.Options, all bool) (c tableChecks, err error) {
	mpath := filepath.Join(dir, "MANIFEST")
	fp, err := os.Open(mpath)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil // a new store
	}
	if err != nil {
		return c, wrapf("store: open %s: %w", dir, err)
	}
	defer fp.Close()
	file := "MANIFEST"
	defer func() {
		if r := recover(); r != nil {
			err = corrupt(dir, file, fmt.Sprint("unreadable: ", r))
		}
	}()
	mf, _, err := badger.ReplayManifestFile(fp, bo.ExternalMagicVersion, bo)
	if err != nil {
		return c, corrupt(dir, file, err.Error())
	}
	var ver verified
	if !all {
		ver = readVerified(dir)
	}
	stamps := make(map[uint64]tableStamp, len(mf.Tables))
	for id, tm := range mf.Tables {
		file = table.IDToFilename(id)
		path := filepath.Join(dir, file)
		st, serr := statTable(path) // before the check: a change meanwhile is a new stamp
		full := all || serr != nil || !ver.trusts(id, st)
		mode := options.NoVerification
		if full {
			mode = options.OnTableRead
		}
		if err := checkTable(path, id, &table.Options{ChkMode: mode, Compression: tm.Compression}); err != nil {
			return c, corrupt(dir, file, err.Error())
		}
		c.Tables++
		if full {
			c.Full++
			c.FullBytes += st.Size
		}
		stamps[id] = st
	}
	if c.Full > 0 || len(ver.stamps) != len(stamps) {
		writeVerified(dir, stamps) // a cache: without it the next open checks all
	}
	return c, nil
}

// checkTable maps one table file and reads its index (and, in mode
// OnTableRead, every block) through Badger's table reader. Panics of the
// reader and faults on the mapping are returned as errors.
func checkTable(path string, id uint64, topt *table.Options) (err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("missing: the MANIFEST lists it")
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < 16 {
		return fmt.Errorf("truncated to %d bytes", fi.Size())
	}
	data, unmap, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return err
	}
	defer unmap()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	blocks := false // reading blocks rather than the footer and index
	defer func() {
		if r := recover(); r != nil {
			if blocks {
				// Badger's checker itself panics on a block it cannot read.
				err = errors.New("damaged block: a block does not match its checksum or cannot be decoded")
				return
			}
			err = fmt.Errorf("damaged or truncated table: reading it failed with %s", panicReason(r))
		}
	}()
	t, err := table.OpenInMemoryTable(data, id, topt)
	if err == nil && topt.ChkMode == options.OnTableRead {
		blocks = true
		err = t.VerifyChecksum()
	}
	if err != nil {
		if m := blockRE.FindStringSubmatch(err.Error()); m != nil {
			return fmt.Errorf("damaged block: checksum mismatch in block %s at offset %s", m[1], m[2])
		}
		if strings.Contains(err.Error(), "checksum") {
			return errors.New("damaged index: checksum mismatch in the table index")
		}
		if !blocks {
			// The footer of a cut table is read from its middle: what
			// the reader makes of those bytes varies with the table.
			return fmt.Errorf("damaged or truncated table: %s", firstLine(err.Error()))
		}
	}
	return err
}

// blockRE finds the block of a checksum failure in a Badger message.
var blockRE = regexp.MustCompile(`block: (\d+), offset:\s*(\d+)`)

// panicReason is the runtime error of a recovered panic (Badger wraps it in
// a dump of the table's footer), or its first line.
func panicReason(r any) string {
	s := fmt.Sprint(r)
	if i := strings.Index(s, "runtime error: "); i >= 0 {
		return firstLine(s[i:])
	}
	if strings.Contains(s, "initIndex") {
		return "an unreadable footer or index"
	}
	return firstLine(s)
}

// firstLine returns the first non-empty line of s.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "==") {
			return l
		}
	}
	return s
}

// badgerCorrupt turns an error of Badger that means damaged files into a
// CorruptError; other errors are returned unchanged.
func badgerCorrupt(dir string, err error) error {
	if err == nil || errors.Is(err, ErrCorrupt) {
		return err
	}
	msg := err.Error()
	low := strings.ToLower(msg)
	switch {
	case errors.Is(err, errCorrupt):
		return corrupt(dir, "", msg)
	case strings.Contains(low, "checksum"):
		return corrupt(dir, tableFile(msg), msg)
	case strings.Contains(low, "manifest"):
		return corrupt(dir, "MANIFEST", msg)
	case strings.Contains(low, "vlog") || strings.Contains(low, "value log"):
		return corrupt(dir, vlogFile(msg), "unreadable value log: "+lastCause(msg))
	case strings.Contains(low, "key registry") || strings.Contains(low, "keyregistry") ||
		strings.Contains(low, "sanity text") || strings.Contains(low, "encryption key mismatch"):
		// drumql never encrypts: a key mismatch is a damaged check text.
		return corrupt(dir, "KEYREGISTRY", "damaged key registry (Badger: "+msg+")")
	}
	return err
}

// lastCause is the innermost cause of a Badger message ("... err: CAUSE").
func lastCause(msg string) string {
	if i := strings.LastIndex(msg, "err: "); i >= 0 {
		return msg[i+len("err: "):]
	}
	return msg
}

// tableFile finds a table file name (NNNNNN.sst) in a Badger message.
func tableFile(msg string) string { return findFile(msg, ".sst") }

// vlogFile finds a value-log file name in a Badger message.
func vlogFile(msg string) string {
	if f := findFile(msg, ".vlog"); f != "" {
		return f
	}
	return "value log"
}

// findFile returns the base name of the first word of msg ending in ext.
func findFile(msg, ext string) string {
	for w := range strings.FieldsFuncSeq(msg, func(r rune) bool { return r == ' ' || r == ',' || r == ':' || r == '"' }) {
		if strings.HasSuffix(w, ext) {
			return filepath.Base(w)
		}
	}
	return ""
}

// shield runs at the boundary of the store's methods: it turns a memory
// fault on a mapped file into a panic for the calling goroutine and a panic
// inside Badger (which happens on damaged files) into a CorruptError in
// *errp. Use it as
//
//	defer d.shield(&err)()
func (d *DB) shield(errp *error) func() { return shieldDir(d.dir, errp, nil) }

// shieldDir is shield for the store in dir. While *inYield is true (the
// panic comes from the caller's loop body, not from the store) the panic
// goes on.
func shieldDir(dir string, errp *error, inYield *bool) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if inYield != nil && *inYield {
				panic(r)
			}
			*errp = corrupt(dir, "", "reading it failed with "+panicReason(r))
		}
	}
}

// guardSeq runs the body of an iterator of d under shield: a panic inside
// the store ends the iteration with a CorruptError, while a panic in the
// caller's loop body propagates unchanged.
func guardSeq[T any](d *DB, yield func(T, error) bool, body func(yield func(T, error) bool)) {
	var err error
	inYield, stopped := false, false
	func() {
		defer shieldDir(d.dir, &err, &inYield)()
		body(func(v T, e error) bool {
			inYield = true
			more := yield(v, e)
			inYield = false
			stopped = !more || e != nil
			return more
		})
	}()
	if err != nil && !stopped {
		var zero T
		yield(zero, err)
	}
}
