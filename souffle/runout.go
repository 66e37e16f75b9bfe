package souffle

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/reasoner"
)

// output is one relation's tuples, ready to write: n of them, as sorted
// formatted lines (lines), or as a table whose keys sort as the lines do
// (tab). A .printsize's output has n only.
type output struct {
	io    IO
	n     int
	lines []string
	tab   *table
}

// table is a relation's tuples in the order of their formatted lines,
// without the lines: the distinct formatted values of each column in
// string order (vals; the confidence, when written, is the last column),
// and per tuple a key packing the rank of its value in each column, the
// first column in the highest bits. When no value holds a byte at or
// below '\n' (the separators' bytes), the keys sort as the lines: at the
// first column where two lines differ, either the values differ at some
// byte, or one is a prefix of the other and the separator after it is
// smaller than the other's next byte. A tuple then costs 8 bytes, not a
// string.
type table struct {
	vals  [][]string
	shift []uint
	width []uint
	keys  []uint64
}

// evaluated returns the reader of the outputs of evaluation v for write:
// a relation's tuples sorted, or their number alone (count).
func (p *Program) evaluated(ctx context.Context, v *reasoner.Evaluation, conf bool) func(rel string, count bool) (output, error) {
	return func(rel string, count bool) (output, error) {
		if err := ctx.Err(); err != nil {
			return output{}, fmt.Errorf("run: %w", err)
		}
		d := p.Decls[rel]
		if count {
			n := 0
			err := v.Each(rel, len(d.Cols), func([]uint32, float64) bool { n++; return true })
			return output{n: n}, err
		}
		return p.sorted(v, rel, d, conf)
	}
}

// idIndex numbers the distinct values of a column in order of first
// appearance: small ids (the store's, mostly) through a slice, the others
// through a map.
type idIndex struct {
	dense []uint32 // number + 1 by id, 0: not seen
	other map[uint32]uint32
	ids   []uint32 // by number
}

// denseIDs bounds the ids an idIndex looks up in its slice (4 MB).
const denseIDs = 1 << 20

// note numbers x when it is new.
func (x *idIndex) note(id uint32) {
	if id < denseIDs {
		if int(id) >= len(x.dense) {
			n := max(int(id)+1, min(2*len(x.dense), denseIDs))
			x.dense = slices.Grow(x.dense, n-len(x.dense))[:n]
		}
		if x.dense[id] == 0 {
			x.ids = append(x.ids, id)
			x.dense[id] = uint32(len(x.ids))
		}
		return
	}
	if x.other == nil {
		x.other = map[uint32]uint32{}
	}
	if _, ok := x.other[id]; !ok {
		x.ids = append(x.ids, id)
		x.other[id] = uint32(len(x.ids))
	}
}

// number returns the number of id, which note has seen.
func (x *idIndex) number(id uint32) uint32 {
	if id < denseIDs {
		return x.dense[id] - 1
	}
	return x.other[id] - 1
}

// sorted reads relation rel (declared d) from v and sorts its tuples as
// their formatted lines sort: as a table, or as the lines themselves when
// a value holds a separator's byte or the ranks do not fit a key.
// Confidences are written as float32 values, which is what the store
// that `drumql run` used to read the relations from kept.
func (p *Program) sorted(v *reasoner.Evaluation, rel string, d *Decl, conf bool) (output, error) {
	arity := len(d.Cols)
	ncol := arity
	if conf {
		ncol++
	}
	cols := make([]idIndex, ncol)
	n := 0
	err := v.Each(rel, arity, func(args []uint32, c float64) bool {
		n++
		for i, a := range args {
			cols[i].note(a)
		}
		if conf {
			cols[arity].note(math.Float32bits(float32(c)))
		}
		return true
	})
	if err != nil {
		return output{}, err
	}
	// The formatted values, by column and number.
	strs := make([][]string, ncol)
	safe := arity > 0
	for c := range cols {
		strs[c] = make([]string, len(cols[c].ids))
		for j, x := range cols[c].ids {
			var s string
			if c == arity {
				s = strconv.FormatFloat(float64(math.Float32frombits(x)), 'g', -1, 64)
			} else {
				name, err := v.Name(x)
				if err != nil {
					return output{}, fmt.Errorf("run: %s: %w", rel, err)
				}
				s = p.format(d.Cols[c], name)
			}
			strs[c][j] = s
			safe = safe && !strings.ContainsFunc(s, func(r rune) bool { return r <= '\n' })
		}
	}
	// The rank of each value among its column's distinct formatted
	// values (two ids may print alike: 1.0 and 1 in a float column).
	t := &table{vals: make([][]string, ncol), shift: make([]uint, ncol), width: make([]uint, ncol)}
	ranks := make([][]uint32, ncol)
	var total uint
	for c := range cols {
		order := make([]int32, len(strs[c]))
		for j := range order {
			order[j] = int32(j)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(strs[c][a], strs[c][b]) })
		ranks[c] = make([]uint32, len(order))
		for _, j := range order {
			if k := len(t.vals[c]); k == 0 || t.vals[c][k-1] != strs[c][j] {
				t.vals[c] = append(t.vals[c], strs[c][j])
			}
			ranks[c][j] = uint32(len(t.vals[c]) - 1)
		}
		t.width[c] = uint(bits.Len(uint(max(len(t.vals[c])-1, 0))))
		total += t.width[c]
	}
	if !safe || total > 64 {
		lines, err := p.sortedLines(v, rel, arity, cols, strs)
		return output{n: len(lines), lines: lines}, err
	}
	shift := total
	for c := range cols {
		shift -= t.width[c]
		t.shift[c] = shift
	}
	t.keys = make([]uint64, 0, n)
	err = v.Each(rel, arity, func(args []uint32, c float64) bool {
		var k uint64
		for i, a := range args {
			k |= uint64(ranks[i][cols[i].number(a)]) << t.shift[i]
		}
		if conf {
			k |= uint64(ranks[arity][cols[arity].number(math.Float32bits(float32(c)))]) << t.shift[arity]
		}
		t.keys = append(t.keys, k)
		return true
	})
	if err != nil {
		return output{}, err
	}
	slices.Sort(t.keys)
	return output{n: len(t.keys), tab: t}, nil
}

// sortedLines reads relation rel from v as formatted lines, sorted, each value
// from strs by its number in cols (the confidence last, when cols has a
// column more than arity).
func (p *Program) sortedLines(v *reasoner.Evaluation, rel string, arity int, cols []idIndex, strs [][]string) ([]string, error) {
	var lines []string
	var b strings.Builder
	err := v.Each(rel, arity, func(args []uint32, c float64) bool {
		b.Reset()
		if arity == 0 {
			b.WriteString("()")
		}
		for i, a := range args {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strs[i][cols[i].number(a)])
		}
		if len(cols) > arity {
			b.WriteByte('\t')
			b.WriteString(strs[arity][cols[arity].number(math.Float32bits(float32(c)))])
		}
		b.WriteByte('\n')
		lines = append(lines, b.String())
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return lines, nil
}

// writeLines writes the lines of o to w, the values separated by sep.
func (o *output) writeLines(w *bufio.Writer, sep string) error {
	if t := o.tab; t != nil {
		for _, k := range t.keys {
			for c, vs := range t.vals {
				if c > 0 {
					w.WriteString(sep)
				}
				w.WriteString(vs[k>>t.shift[c]&(1<<t.width[c]-1)])
			}
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	}
	for _, l := range o.lines {
		if sep != "\t" {
			l = strings.ReplaceAll(l, "\t", sep)
		}
		if _, err := w.WriteString(l); err != nil {
			return err
		}
	}
	return nil
}

// writeStdout writes o to stdout as Soufflé prints an output to stdout:
// its name between rules, then its lines.
func writeStdout(stdout io.Writer, o output) error {
	w := bufio.NewWriterSize(stdout, 1<<16)
	fmt.Fprintf(w, "---------------\n%s\n===============\n", o.io.Rel)
	err := o.writeLines(w, "\t")
	w.WriteString("===============\n")
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("run: writing %s: %w", o.io.Rel, err)
	}
	return nil
}

// fileWriter returns the writer of o's output file: with the directive's
// delimiter (tab by default), after a header line of the attribute names
// with headers=true.
func (p *Program) fileWriter(o output) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error {
		delim, ok := o.io.Params["delimiter"]
		if !ok {
			delim = "\t"
		}
		if o.io.Params["headers"] == "true" {
			var names []string
			for _, c := range p.Decls[o.io.Rel].Cols {
				names = append(names, c.Name)
			}
			w.WriteString(strings.Join(names, delim) + "\n")
		}
		return o.writeLines(w, delim)
	}
}

// writeAtomic writes path through fill and a temporary file renamed over
// it: the file is written whole or not at all.
func writeAtomic(path string, fill func(w *bufio.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("run: writing %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("run: writing %s: %w", path, err)
	}
	return nil
}
