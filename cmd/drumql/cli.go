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

	Load    loadCmd    `cmd:"" help:"Load triples into the store (DRUM dataset folder, TSV or N-Triples)."`
	Mine    mineCmd    `cmd:"" help:"Learn weighted rules from the store with DRUM."`
	Check   checkCmd   `cmd:"" help:"Parse and validate Datalog rule files."`
	Infer   inferCmd   `cmd:"" help:"Derive and store every fact the rules imply (forward chaining)."`
	Query   queryCmd   `cmd:"" help:"Answer a query with confidences (and a proof with --explain)."`
	Explain explainCmd `cmd:"" help:"Print the best proof of a fact as a tree."`
	Eval    evalCmd    `cmd:"" help:"Link-prediction evaluation (filtered MRR, Hits@k) of a model or rule files."`
	Stats   statsCmd   `cmd:"" help:"Show entities, relations and facts in the store."`
	Version versionCmd `cmd:"" help:"Print version information."`

	Snapshot snapshotCmd `cmd:"" help:"Write what mining reads (graph, symbols, splits) to one checksummed file."`
}

const description = `drumql mines weighted Datalog rules from a knowledge graph (DRUM), merges them
with rules written by hand, completes the graph and answers queries with proofs.

Examples:
  drumql load examples/family          # a DRUM dataset folder into ./drumql.db
  drumql stats --format json
  drumql version`

type exitPanic int

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
	if isTerminal(stderr) && os.Getenv("NO_COLOR") == "" {
		msg = colorize(msg)
	}
	fmt.Fprint(stderr, msg)
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// openStore opens the store at --db. With mustExist, a missing store is an
// error that says to run drumql load first.
func (e *env) openStore(mustExist bool) (store.Store, error) {
	dir := e.cli.DB
	if mustExist {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			abs, _ := filepath.Abs(dir)
			return nil, inputErr(fmt.Errorf("no store at %s: run 'drumql load DATA' first (or pass --db DIR)", abs))
		}
	}
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		if errors.Is(err, store.ErrInUse) {
			return nil, fmt.Errorf("%w\nhint: another drumql process has %s open; wait for it to finish", err, dir)
		}
		return nil, err
	}
	return st, nil
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
