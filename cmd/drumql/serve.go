package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/server"
)

// serveCmd is drumql serve.
type serveCmd struct {
	Files        []string      `arg:"" optional:"" name:"rules" help:"Datalog rule files (.dl), loaded as infer loads them."`
	Addr         string        `default:"127.0.0.1:7474" placeholder:"HOST:PORT" help:"Address to listen on (loopback by default; another address serves the network)."`
	Token        string        `placeholder:"SECRET" env:"DRUMQL_TOKEN" help:"Require 'Authorization: Bearer SECRET' on every request that changes something (POST /v1/rules, /v1/facts, /v1/load, /v1/retract); the environment variable DRUMQL_TOKEN keeps it out of the process list."`
	ReadToken    string        `placeholder:"SECRET" env:"DRUMQL_READ_TOKEN" help:"Require 'Authorization: Bearer SECRET' (or the --token) on every read too (query, explain, rules, stats); health, the page and /metrics stay open."`
	Edits        string        `placeholder:"FILE" help:"File that rules added through POST /v1/rules are appended to, and loaded with the rule files on start (default: edits.dl in the store's directory)."`
	QueryTimeout time.Duration `default:"30s" placeholder:"DURATION" help:"Stop a query or explanation that takes longer (503)."`
	MaxBody      string        `default:"1M" placeholder:"SIZE" help:"Largest request body (413 beyond it)."`
	MaxFacts     int           `default:"5000000" placeholder:"N" help:"Refuse a query or an update that would derive more than N facts (413)."`
	MaxMemory    string        `placeholder:"SIZE" help:"Cap the memory the process holds (the Go runtime's and the store's mapped files') while an update or a query evaluates (e.g. 8G; off: none): an update beyond it is refused and rolled back (413), a query stopped (503); default: 3/4 of the available memory at start (the smaller of MemAvailable and the cgroup limit)."`
	MaxString    string        `default:"1M" placeholder:"SIZE" help:"Longest string an update or a query may make (cat, +: 413 beyond it, nothing changed) and longest name POST /v1/facts takes (400); at most 1M, the store's longest name."`
	Min          *float64      `placeholder:"X" help:"Threshold of the derived facts, overriding the rule files' @min (as infer --min)."`
	Threads      int           `placeholder:"N" help:"Worker goroutines (default 0: all cores)."`
	LogFormat    string        `enum:"text,json" default:"text" help:"Request log on stderr: text or json (one line per request)."`
}

// Help is shown under the command's usage.
func (serveCmd) Help() string {
	return `Keeps the store open with the rule files loaded and their derived facts in
memory, and answers a JSON API under /v1 (query, explain, rules, rule and fact
edits, stats; GET /v1/openapi.json describes it), Prometheus metrics at
/metrics and a web page at / (queries, proofs, the rules to browse and edit)
until SIGINT or SIGTERM; in-flight requests get 1 s, then are cancelled (an
update rolled back), and the store closes cleanly. On start the derived facts are brought up to date as infer
does. Rule edits are applied incrementally and persisted: added rules are
appended to the --edits file, a removed rule is deleted from its file (an
atomic rewrite that keeps every other line). One line per request is logged
on stderr.

Examples:
  drumql serve families.dl examples/families/expert.dl
  drumql serve --addr 127.0.0.1:8080 --token s3cret rules.dl
  curl -s localhost:7474/v1/query -d '{"query": "wife(X, marc_ueda)?", "top": 3}'`
}

func (c *serveCmd) Run(e *env) error {
	minX, err := minFlag(c.Min)
	if err := errors.Join(err, checkCount("threads", c.Threads)); err != nil {
		return err
	}
	caps, err := server.Limits{MaxFacts: c.MaxFacts, QueryTimeout: c.QueryTimeout, MaxBody: c.MaxBody, MaxMemory: c.MaxMemory, MaxString: c.MaxString}.Check()
	if err != nil {
		return inputErr(err)
	}
	defer caps.Mem.Soften()()
	edits := server.EditsFile(c.Edits, e.cli.DB)
	files := server.RuleFiles(c.Files, edits)
	ps, th, st, err := programAndStore(e, files, minX, false)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return inputErr(fmt.Errorf("--addr %s: %w", c.Addr, err))
	}
	defer ln.Close()
	var h slog.Handler = slog.NewTextHandler(e.stderr, nil)
	if c.LogFormat == "json" {
		h = slog.NewJSONHandler(e.stderr, nil)
	}
	s, err := server.New(e.ctx, server.Config{
		Store: st, DB: e.cli.DB, Program: ps.Prog, Validated: true, Files: files, Edits: edits, Min: th.Min, MaxFacts: c.MaxFacts,
		Threads: c.Threads, RequestProcs: server.DefaultRequestProcs, MaxMemory: caps.Mem.Bytes, MaxString: caps.String, QueryTimeout: c.QueryTimeout, MaxBody: caps.Body, Token: c.Token, ReadToken: c.ReadToken, Logger: slog.New(h),
	}, func(what string) {
		if !e.cli.Quiet {
			fmt.Fprintln(e.stderr, what)
		}
	})
	if err != nil {
		if e.ctx.Err() != nil {
			return fmt.Errorf("serve interrupted while bringing the derived facts up to date: the store is unchanged")
		}
		return (&inferCmd{}).inferErr(e, err, sysmem.Limit{})
	}
	if server.Exposed(ln.Addr()) {
		fmt.Fprintf(e.stderr, "warning: serving on %s, reachable from other machines", ln.Addr())
		if c.Token == "" {
			fmt.Fprint(e.stderr, ", and without --token anyone who reaches it can change the rules and facts")
		}
		fmt.Fprintln(e.stderr)
	}
	fmt.Fprintf(e.stdout, "serving http://%s (%d rules; store %s; rule edits go to %s); open http://%s/ in a browser for the page\n", ln.Addr(), len(ps.Prog.Rules), e.cli.DB, edits, ln.Addr())
	// Graceful: stop accepting, let the requests in flight finish.
	if err := s.Serve(e.ctx, ln); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "stopped; the store is closed")
	return nil
}
