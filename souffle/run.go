package souffle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// Config is what `drumql run` was asked: Soufflé's flags.
type Config struct {
	Program    string // PROG.dl
	FactDir    string // -F, default "."
	OutputDir  string // -D, default "."; "-" writes the outputs to stdout
	Jobs       int    // -j; 0 or 1 evaluates serially
	NoWarn     bool   // -w
	Confidence bool   // --confidence: a last column with each tuple's confidence
	// GCPercent, when not 0, is the collector's target
	// (runtime/debug.SetGCPercent) once the live heap has reached
	// LargeHeap, until Run returns; the CLI sets it to RunGCPercent unless
	// GOGC is set.
	GCPercent int
}

// RunGCPercent is the collector's target `drumql run` evaluates with once
// its heap is large (Config.GCPercent): a collection when the heap has
// grown by a quarter since the last, not by as much again (Go's default).
// A large evaluation heap is mostly columns and hash slots without
// pointers, which the collector does not scan, so collecting more often
// costs little CPU, and the default's headroom was a fifth to a third of
// `drumql run`'s peak RSS (docs/BENCHMARKS.md). A small heap keeps the
// default: there the collector's work is the pointers of names and
// expression values, and collecting four times as often cost a program of
// Soufflé's tests (inline_nqueens, a 24 MB process) a fifth more CPU.
const RunGCPercent = 25

// LargeHeap is the live heap from which Config.GCPercent applies: 16
// MiB, where reach-1m's evaluation (a live heap of 25 to 30 MiB, mostly
// columns) peaked 7 MB lower than at 32 MiB, for no more CPU
// (docs/BENCHMARKS.md).
const LargeHeap = 16 << 20

// HugeHeap is the live heap from which the collector's target is half of
// Config.GCPercent: at 48 MiB and more, what an evaluation holds is its
// relations' columns and hash slots almost only (no pointers, so a
// collection marks little), and the headroom of a quarter was 10 to 25
// MB of the peak RSS of tc-2k, sg-2k and csda-s (docs/BENCHMARKS.md).
const HugeHeap = 48 << 20

// collectAt sets the collector's target to percent once the live heap
// reaches LargeHeap, and to half of it once it reaches HugeHeap (looked at
// every 20 ms), until stop is called, which restores the target it found.
func collectAt(percent int) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	prev, set := 0, false
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for stage := 0; stage < 2; {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(live)
			if live[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			switch n := live[0].Value.Uint64(); {
			case stage == 0 && n >= LargeHeap:
				prev, set = debug.SetGCPercent(percent), true
				stage = 1
			case stage == 1 && n >= HugeHeap:
				debug.SetGCPercent(max(1, percent/2))
				stage = 2
			}
		}
		<-done
	}()
	return func() {
		close(done)
		<-finished
		if set {
			debug.SetGCPercent(prev)
		}
	}
}

// collectLate turns the collector off until the heap reaches 64 MiB and
// three times size (the input files' bytes), or a lower limit set before
// (GOMEMLIMIT), or the returned function is called: then the target and
// the limit it found are back. While `drumql run` reads its inputs, what
// the heap holds is mostly kept (the columns, sized ahead, and the
// names), and a collection marks every name read so far: reach-1m
// collected four times while reading a million edges. The limit stops
// the heap at that size; a watcher (every 10 ms) gives the collector back
// once the heap is at three quarters of it, so that inputs that take more
// memory than that (many distinct short names) are read with the
// collector as before, not collected over and over at the limit.
func collectLate(size int64) (restore func()) {
	limit := debug.SetMemoryLimit(-1)
	prevPercent := debug.SetGCPercent(-1)
	bound := min(limit, 64<<20+3*size)
	debug.SetMemoryLimit(bound)
	back := func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(prevPercent)
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(heap)
			if heap[0].Value.Kind() == metrics.KindUint64 && heap[0].Value.Uint64() >= uint64(bound)/4*3 {
				back()
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		back()
	}
}

// inputBytes returns the size of the .input files in factDir, summed (a
// file read through gzip counted four times); files it cannot stat count
// nothing (reading them reports the error).
func (p *Program) inputBytes(factDir string) int64 {
	var n int64
	for _, src := range p.Inputs {
		path := factPath(src, factDir, ".facts")
		if fi, err := os.Stat(path); err == nil {
			if strings.HasSuffix(path, ".gz") {
				n += 4 * fi.Size()
			} else {
				n += fi.Size()
			}
		}
	}
	return n
}

// Run reads, evaluates and writes the program of cfg: every .output
// relation to its file (or stdout), the .printsize counts to stdout. It
// writes nothing when reading or evaluating fails; each output file is
// written whole or not at all (a temporary file renamed).
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	src, err := readSource(cfg.Program)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if !IsSouffle(cfg.Program, src) {
		return runDrumql(ctx, cfg, src, stdout)
	}
	p, prog, err := Read(cfg.Program, src)
	if err != nil {
		return err
	}
	relaxed := func() {}
	if cfg.GCPercent != 0 {
		relaxed = collectLate(p.inputBytes(cfg.FactDir))
	}
	in, err := p.readInputs(ctx, cfg.FactDir)
	relaxed()
	if err != nil {
		return err
	}
	if cfg.GCPercent != 0 {
		defer collectAt(cfg.GCPercent)()
	}
	limits, err := p.limits()
	if err != nil {
		return err
	}
	opt := reasoner.Options{Threads: max(cfg.Jobs, 1), Choice: p.choices(), Limit: limits, Subsume: p.recursive}
	if p.goalDirected() {
		// Queries read a store's indexes and snapshot: a store.Mem of
		// the same ids.
		st := store.NewMemory()
		defer st.Close()
		if _, err := st.Load(ctx, in.batch(), nil); err != nil {
			return fmt.Errorf("run: loading the input facts: %w", err)
		}
		p.goal = prog
		return p.write(cfg, prog, stdout, func(rel string, _ bool) (output, error) {
			lines, err := p.tuples(ctx, st, rel, cfg.Confidence)
			return output{lines: lines, n: len(lines)}, err
		})
	}
	opt.Loaded = in.release
	v, err := reasoner.Evaluate(ctx, in, prog, opt)
	if err != nil {
		return err
	}
	return p.write(cfg, prog, stdout, p.evaluated(ctx, v, cfg.Confidence))
}

// runDrumql runs a file of drumql's dialect: its facts and rules, every
// relation a rule defines written as REL.csv.
func runDrumql(ctx context.Context, cfg Config, src []byte, stdout io.Writer) error {
	prog, err := parser.ParseString(cfg.Program, string(src))
	if err != nil {
		return err
	}
	p := &Program{Decls: map[string]*Decl{}, Types: map[string]string{}}
	for _, r := range prog.Rules {
		if _, ok := p.Decls[r.Head.Pred]; !ok {
			d := &Decl{Name: r.Head.Pred}
			for range r.Head.Args {
				d.Cols = append(d.Cols, Col{Type: "symbol", Kind: "symbol"})
			}
			p.Decls[d.Name] = d
			p.Order = append(p.Order, d.Name)
			p.Outputs = append(p.Outputs, IO{Rel: d.Name, Params: map[string]string{}})
		}
	}
	slices.SortFunc(p.Outputs, func(a, b IO) int { return strings.Compare(a.Rel, b.Rel) })
	st := store.NewMemory()
	defer st.Close()
	v, err := reasoner.Evaluate(ctx, st, prog, reasoner.Options{Threads: max(cfg.Jobs, 1)})
	if err != nil {
		return err
	}
	return p.write(cfg, prog, stdout, p.evaluated(ctx, v, cfg.Confidence))
}

// write computes every output (each relation's tuples, sorted, through
// read; only their number for a .printsize), then writes them: the
// .output files, then the .printsize counts. Nothing is written when
// computing one fails.
func (p *Program) write(cfg Config, prog *datalog.Program, stdout io.Writer, read func(rel string, count bool) (output, error)) error {
	defined := map[string]bool{}
	for _, f := range prog.Facts {
		defined[f.Atom.Pred] = true
	}
	for _, r := range prog.Rules {
		defined[r.Head.Pred] = true
	}
	for _, in := range p.Inputs {
		defined[in.Rel] = true
	}
	tuples := func(rel string, count bool) (output, error) {
		if !defined[rel] {
			return output{}, nil
		}
		if slices.Contains(p.subsumed, rel) {
			return read(kept(rel), count)
		}
		return read(rel, count)
	}
	var outs []output
	for _, o := range p.Outputs {
		out, err := tuples(o.Rel, false)
		if err != nil {
			return err
		}
		out.io = o
		outs = append(outs, out)
	}
	var sizes []string
	for _, o := range p.PrintSizes {
		out, err := tuples(o.Rel, true)
		if err != nil {
			return err
		}
		sizes = append(sizes, fmt.Sprintf("%s\t%d\n", o.Rel, out.n))
	}
	for _, o := range outs {
		if cfg.OutputDir == "-" || o.io.Params["IO"] == "stdout" {
			if err := writeStdout(stdout, o); err != nil {
				return err
			}
			continue
		}
		if err := writeAtomic(factPath(o.io, cfg.OutputDir, ".csv"), p.fileWriter(o)); err != nil {
			return err
		}
	}
	for _, s := range sizes {
		if _, err := io.WriteString(stdout, s); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	return nil
}

// tuples returns the facts of rel, one formatted line each, sorted.
func (p *Program) tuples(ctx context.Context, st store.Store, rel string, conf bool) ([]string, error) {
	d := p.Decls[rel]
	q := datalog.Atom{Pred: rel}
	for i := range d.Cols {
		q.Args = append(q.Args, datalog.Term{Kind: datalog.Var, Value: "V" + strconv.Itoa(i)})
	}
	var lines []string
	err := reasoner.QueryFunc(ctx, st, p.goal, q, reasoner.Options{Choice: p.choices()}, func(a reasoner.Answer) bool {
		var b strings.Builder
		if len(d.Cols) == 0 {
			b.WriteString("()")
		}
		for i, v := range a.Values {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(p.format(d.Cols[i], v))
		}
		if conf {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatFloat(a.Confidence, 'g', -1, 64))
		}
		b.WriteByte('\n')
		lines = append(lines, b.String())
		return true
	})
	if errors.Is(err, reasoner.ErrUnknownPredicate) {
		return nil, nil // an input relation of no fact
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return lines, nil
}

// format writes value v of column c: a float in the fewest digits that
// read back as it (0.0009765625, 1000000, 1e+21), the rest as they are.
func (p *Program) format(c Col, v string) string {
	switch p.kind(c.Type) {
	case "float":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	case "record":
		return p.formatRecord(c.Type, v)
	}
	return v
}

// choices returns the choice domains of the declared relations, by name
// (reasoner.Options.Choice).
func (p *Program) choices() map[string][][]int {
	var m map[string][][]int
	for name, d := range p.Decls {
		if len(d.Choice) > 0 {
			if m == nil {
				m = map[string][][]int{}
			}
			m[name] = d.Choice
		}
	}
	return m
}

// limits returns the sizes of the .limitsize directives, by relation
// (reasoner.Options.Limit).
func (p *Program) limits() (map[string]int, error) {
	var m map[string]int
	for _, l := range p.Limits {
		n, err := strconv.Atoi(l.Params["n"])
		if err != nil || n < 0 {
			return nil, errAt(l.At, ".limitsize %s: expected n=N, a number of tuples, not %q", l.Rel, l.Params["n"])
		}
		if m == nil {
			m = map[string]int{}
		}
		m[l.Rel] = n
	}
	return m, nil
}
