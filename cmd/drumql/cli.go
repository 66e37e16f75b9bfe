package main

// This file is the command table: the grammar of the command line and run,
// which parses it and runs the command. The helpers every command uses are
// in env.go (the environment and the store), errors.go (exit codes and
// messages) and progress.go (progress bars).

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/souffle"
)

type runCmd struct{ souffle.Command } // drumql run: package souffle
func (c *runCmd) Run(e *env) error    { return inputErr(c.Command.Run(e.ctx, e.stdout, e.stderr)) }

// cli is the kong grammar of the command line.
type cli struct {
	DB    string `name:"db" default:"drumql.db" placeholder:"DIR" help:"Directory of the embedded store."`
	Quiet bool   `short:"q" help:"No progress output on stderr."`

	MaxImportSize      string `name:"max-import-size" default:"256M" placeholder:"SIZE" help:"Largest rule file or @import file read (K, M, G suffixes; large graphs go through drumql load)."`
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
	Run     runCmd     `cmd:"" help:"Run a Soufflé program as Soufflé does: its .input files in, its .output files out (no store)."`

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
