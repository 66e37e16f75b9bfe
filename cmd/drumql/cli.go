package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/store"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitCorrupt = 3
)

// usageError marks an error caused by the user's input (bad flags, malformed
// files, bad programs): it exits with code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// env is what every command gets: the streams and the global flags.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	cli    *cli
}

// cli is the kong grammar of the command line.
type cli struct {
	DB    string `name:"db" default:"drumql.db" placeholder:"DIR" help:"Directory of the embedded store."`
	Quiet bool   `short:"q" help:"No progress output on stderr."`

	MaxImportSize      string `name:"max-import-size" default:"64M" placeholder:"SIZE" help:"Largest rule file or @import file read (K, M, G suffixes; large graphs go through drumql load)."`
	AllowImportOutside bool   `name:"allow-import-outside" help:"Let @import read files outside the directory of the rule file given (absolute paths, .., symbolic links)."`

	Load    loadCmd    `cmd:"" help:"Load triples into the store (DRUM dataset folder, TSV or N-Triples)."`
	Retract retractCmd `cmd:"" help:"Remove base facts from the store (TSV or N-Triples files)."`
	Mine    mineCmd    `cmd:"" help:"Learn weighted rules from the store with DRUM."`
	Check   checkCmd   `cmd:"" help:"Parse and validate Datalog rule files."`
	Convert convertCmd `cmd:"" help:"Convert rule files: AnyBURL's and AMIE 3's to drumql's Datalog, drumql's to AnyBURL's."`
	Infer   inferCmd   `cmd:"" help:"Derive and store every fact the rules imply (forward chaining)."`
	Query   queryCmd   `cmd:"" help:"Answer a query with confidences (and a proof with --explain)."`
	Explain explainCmd `cmd:"" help:"Print the best proof of a fact as a tree."`
	Eval    evalCmd    `cmd:"" help:"Link-prediction evaluation (filtered MRR, Hits@k) of a model or rule files."`
	Stats   statsCmd   `cmd:"" help:"Show entities, relations and facts in the store."`
	Verify  verifyCmd  `cmd:"" help:"Check the whole store for damage (checksums, keys, counts)."`
	Serve   serveCmd   `cmd:"" help:"Serve queries, proofs, rules and edits over HTTP (JSON API under /v1, /metrics)."`
	Version versionCmd `cmd:"" help:"Print version information."`

	Snapshot snapshotCmd `cmd:"" help:"Write what mining reads (graph, symbols, splits) to one checksummed file."`
	Worker   workerCmd   `cmd:"" help:"Mine head groups for 'drumql mine --cluster' runs on a NATS JetStream server."`
	Cluster  clusterCmd  `cmd:"" help:"List or cancel the 'drumql mine --cluster' runs on a NATS JetStream server."`
}

const description = `drumql mines weighted Datalog rules from a knowledge graph (DRUM), merges them
with rules written by hand, completes the graph and answers queries with proofs.

Examples:
  drumql load examples/family          # a DRUM dataset folder into ./drumql.db
  drumql stats --format json
  drumql version`

// mineGroups are the sections of drumql mine --help, in order, after the
// everyday flags (--out, --len, --epochs, --heads, --threshold, --config).
var mineGroups = []kong.Group{
	{Key: "training", Title: "Training (DRUM):"},
	{Key: "extraction", Title: "Chain rules (reading the rules off the model):"},
	{Key: "constants", Title: "Rules with constants:"},
	{Key: "aggregation", Title: "Aggregation:"},
	{Key: "output", Title: "Output:"},
	{Key: "memory", Title: "Memory and scale:"},
	{Key: "cluster", Title: "Head groups and cluster (NATS JetStream):"},
}

type exitPanic int

// runSupervised, when set (by main, in a process that is not already
// supervised), runs a command that writes the store in a supervised child
// process and returns its exit code; ok is false when it could not, and
// run runs the command itself.
var runSupervised func(cmd string, args []string, db string) (code int, ok bool)

// writers are the commands that open the store for writing (serve writes
// every edit).
var writers = map[string]bool{"load": true, "infer": true, "retract": true, "serve": true}

// run is the whole program: it parses args, runs the command and returns the
// exit code. Only run prints errors.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	var c cli
	parser, err := kong.New(&c,
		kong.Name("drumql"),
		kong.Description(description),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitPanic(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		minerVars(),
		kong.ExplicitGroups(mineGroups),
	)
	if err != nil {
		fmt.Fprintf(stderr, "drumql: %v\n", err)
		return exitFailure
	}
	defer func() {
		if r := recover(); r != nil {
			if p, ok := r.(exitPanic); ok {
				code = int(p)
				return
			}
			panic(r)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "drumql: %v\n", err)
		if kctx != nil {
			fmt.Fprintf(stderr, "Run 'drumql %s --help' for usage.\n", strings.TrimSpace(kctx.Command()))
		}
		return exitUsage
	}
	if cmd := strings.Fields(kctx.Command()); runSupervised != nil && len(cmd) > 0 && writers[cmd[0]] {
		if code, ok := runSupervised(cmd[0], args, c.DB); ok {
			return code
		}
	}
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, cli: &c}
	if err := kctx.Run(e); err != nil {
		return reportError(stderr, err)
	}
	return exitOK
}

// reportError prints err and maps it to an exit code.
func reportError(stderr io.Writer, err error) int {
	msg := err.Error()
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	if !strings.HasPrefix(msg, "drumql") {
		msg = "drumql: " + msg
	}
	if errors.Is(err, store.ErrCorrupt) && !strings.Contains(msg, "\nhint:") {
		msg += "hint: 'drumql verify' checks the whole store; load the data again into a new --db, or restore a copy\n"
	}
	if isTerminal(stderr) && os.Getenv("NO_COLOR") == "" {
		msg = colorize(msg)
	}
	fmt.Fprint(stderr, msg)
	if errors.Is(err, store.ErrCorrupt) {
		return exitCorrupt
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// openStore opens the store at --db read-only, for the commands that only
// read it (query, explain, stats, eval, mine, verify). Readers share the
// store: any number of them run side by side, and a store on a read-only
// file system or without write permission can be read. With mustExist, a
// missing store is an error that says to run drumql load first.
//
// A store whose last writer died is recovered once by a short read-write
// open when nobody else has it open, then opened read-only again.
func (e *env) openStore(mustExist bool) (store.Store, error) {
	if err := e.checkExists(mustExist); err != nil {
		return nil, err
	}
	dir := e.cli.DB
	st, err := store.Open(dir, store.Options{ReadOnly: true})
	if errors.Is(err, store.ErrIncomplete) {
		if rw, rerr := store.Open(dir, store.Options{}); rerr == nil {
			if rerr = rw.Close(); rerr == nil {
				st, err = store.Open(dir, store.Options{ReadOnly: true})
			}
		}
	}
	if err != nil {
		return nil, storeError(err, dir, "a command that writes to it (load or infer) is running; wait for it to finish")
	}
	return st, nil
}

// openStoreForWriting opens the store at --db for load and infer, which
// have it to themselves: when another process (a reader or a writer) has
// it open, the command fails at once with an "in use" error instead of
// waiting. Without mustExist a missing store is created.
func (e *env) openStoreForWriting(mustExist bool) (store.Store, error) {
	if err := e.checkExists(mustExist); err != nil {
		return nil, err
	}
	st, err := store.Open(e.cli.DB, store.Options{})
	if err != nil {
		return nil, storeError(err, e.cli.DB, "another drumql process has it open; wait for it to finish")
	}
	return st, nil
}

// checkExists reports a missing store at --db when mustExist is set.
func (e *env) checkExists(mustExist bool) error {
	if !mustExist {
		return nil
	}
	if _, err := os.Stat(e.cli.DB); errors.Is(err, os.ErrNotExist) {
		abs, _ := filepath.Abs(e.cli.DB)
		return inputErr(fmt.Errorf("no store at %s: run 'drumql load DATA' first (or pass --db DIR)", abs))
	}
	return nil
}

// storeError adds a hint to an error of opening the store at dir; inUse is
// the hint for ErrInUse.
func storeError(err error, dir, inUse string) error {
	switch {
	case errors.Is(err, store.ErrInUse):
		return fmt.Errorf("%w\nhint: %s", err, inUse)
	case errors.Is(err, store.ErrNotWritable):
		return fmt.Errorf("%w\nhint: load and infer write to the store; query, explain, stats, eval, mine and verify open it read-only and work on it as it is (or copy it to a writable directory)", err)
	case errors.Is(err, store.ErrIncomplete):
		return fmt.Errorf("%w\nhint: run a command that writes to %s (drumql load or infer) once to recover it", err, dir)
	}
	return err
}

// ANSI colours for messages on a terminal.
const (
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
	ansiGreen  = "\x1b[1;32m"
	ansiReset  = "\x1b[0m"
)

// colorize colours an error message for a terminal: "error:" red,
// "warning:" yellow, hint lines cyan, caret lines green. NO_COLOR turns it
// off, and it is never used when stderr is not a terminal.
func colorize(msg string) string {
	lines := strings.SplitAfter(msg, "\n")
	for i, l := range lines {
		body := strings.TrimRight(l, "\n")
		nl := l[len(body):]
		switch {
		case strings.HasPrefix(body, "hint:"):
			body = ansiCyan + body + ansiReset
		case strings.TrimSpace(body) == "^":
			body = strings.Replace(body, "^", ansiGreen+"^"+ansiReset, 1)
		default:
			body = strings.Replace(body, " error: ", " "+ansiRed+"error:"+ansiReset+" ", 1)
			body = strings.Replace(body, " warning: ", " "+ansiYellow+"warning:"+ansiReset+" ", 1)
		}
		lines[i] = body + nl
	}
	return strings.Join(lines, "")
}
