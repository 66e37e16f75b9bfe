package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/remote"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// queryCmd is drumql query.
type queryCmd struct {
	Query     string   `arg:"" help:"The query, an atom such as \"wife(X, alice)?\"."`
	Rules     []string `placeholder:"FILE.dl" help:"Rule files whose facts and rules answer the query too."`
	Min       *float64 `placeholder:"X" help:"Drop answers and derivations whose confidence is below X, in (0, 1], overriding the rule files' threshold. Default: the threshold the --rules files set (@min, which drumql mine writes: 0.1), and an exact evaluation when none does. A note on stderr says how many derivations the threshold cut; a lower --min shows the weak answers of many mined rules too, and can take long on a large mined program."`
	Top       int      `placeholder:"N" help:"Print only the N best answers (0: all)."`
	Count     bool     `help:"Print only the number of answers."`
	Format    string   `enum:"table,tsv,json" default:"table" help:"Output format: table, tsv or json."`
	Combine   string   `enum:",max,noisy-or,grouped" default:"" help:"Confidence of an answer: max (the best derivation), noisy-or over the rules that derive it, or grouped (noisy-or across groups of redundant rules, max inside a group). Default: what the rule files' @aggregate directive records for the query's predicate: noisy_or(top = k) is noisy-or over each answer's k best rules, grouped(threshold = t) groups the rules as eval does, max or no directive is max."`
	Explain   bool     `help:"Print the best proof of the top answer (with --format json, every answer carries its proof)."`
	Unordered bool     `help:"Print answers as the evaluator reads them out, unsorted, without holding them (table columns are not aligned); with --combine max only."`
	Threads   int      `placeholder:"N" help:"Worker goroutines (default 0: all cores)."`
	MaxMemory string   `placeholder:"SIZE" help:"Stop with an error when the process holds more than SIZE of memory (the Go runtime's and the store's mapped files') while evaluating (e.g. 8G; default: the available memory; off: no cap). A goal-directed query over a large mined program can need as much as infer."`
}

// Help is shown under the command's usage.
func (queryCmd) Help() string {
	return `Answers are the store's base and derived facts plus what the --rules programs
derive from them, evaluated goal-directed from the query's constants. One row
per answer: the query's variables, then the confidence; best first. A ground
query prints "true <confidence>" or "false". With --rules and no store at --db,
the programs' own facts are the data and no store is created: drumql is then a
Datalog interpreter.

Without --combine, an answer's confidence is combined as the rule files'
@aggregate directive for the query's predicate says: noisy_or(top = k) gives
noisy-or over the answer's k best rules (1 - the product of 1 - c), grouped
gives noisy-or across groups of redundant rules (max inside a group; the
rules are grouped by their predictions on the relation's triples of the valid
split, or its facts, as eval and serve group them), and max or no directive
gives the best derivation.

The threshold belongs to the program: derivations whose confidence is below
the --rules files' @min directive (drumql mine writes @min 0.1; merged files
with different ones use the smallest) are dropped, and a program without one
is evaluated exactly, every answer kept. --min X overrides it. When the
threshold cut derivations or left weaker rules out, a note on stderr says how
many (also with --quiet): no answer disappears silently. Without --rules,
answers are the stored facts, which infer derived at its own threshold.

A variable is a name that starts with an uppercase letter: Marc_Ueda is a
variable, marc_ueda the entity (quote other names: "Marc_Ueda").

Examples:
  drumql query "wife(X, marc_ueda)?" --explain
  drumql query --rules families.dl --rules examples/families/expert.dl "cousin(X, alice_ortiz)?" --top 5
  drumql query --rules prog.dl "path(a, X)?" --format json`
}

func (c *queryCmd) Run(e *env) error {
	minX, err := minFlag(c.Min)
	if err := errors.Join(err, checkCount("top", c.Top), checkCount("threads", c.Threads)); err != nil {
		return err
	}
	if ok, err := remote.Answer(e.ctx, e.cli.DB, remote.Query{Text: c.Query, Top: c.Top, Min: minX, Combine: c.Combine, Explain: c.Explain, Local: len(c.Rules) > 0 || c.Count || c.Unordered}, c.Format, e.stdout); ok {
		return err // serve holds the store: ask it
	}
	q, prog, st, err := openQuery(e, c.Query, c.Rules)
	if err != nil {
		return err
	}
	defer st.Close()
	if prog == nil {
		prog = &datalog.Program{}
	}
	if len(c.Rules) > 0 {
		warnUnknownBody(e.stderr, st, prog)
	}
	hintCapitalised(e.stderr, st, q.Atom)
	noteStale(e.stderr, st)
	th := policy.ResolveMin(minX, prog)
	if minX == 0 {
		warnThresholds(e.stderr, prog)
	}
	// stats is what the threshold cut in the evaluation of the answers
	// (noisy-or's rescoring evaluates the same rules again, at the same
	// threshold: it adds no answer).
	var stats reasoner.EvalStats
	lim, err := memoryCap(c.MaxMemory)
	if err != nil {
		return err
	}
	defer lim.Soften()() // as infer: the collector works harder near the cap
	opt := reasoner.Options{Min: th.Min, Threads: c.Threads, Explain: c.Explain, Stats: &stats, MaxMemory: lim.Bytes}
	// When the store already holds the program's fixpoint at this
	// threshold (infer stored it, and no base fact changed since), the
	// answers are the stored facts and noisy-or applies the head's rules
	// once to them: nothing is evaluated again.
	answerProg := prog
	stored := len(c.Rules) > 0 && policy.StoredFixpoint(st, prog, q.Atom, opt)
	if stored {
		answerProg = nil
		fmt.Fprintln(e.stderr, th.StoredNote())
	}
	if c.Count {
		// noisy-or rescores answers, it neither adds nor removes one
		n, err := reasoner.Count(e.ctx, st, answerProg, q.Atom, opt)
		if err != nil {
			return queryErr(err)
		}
		fmt.Fprintln(e.stdout, n)
		thresholdNote(e.stderr, stats, th, "answers", "are not counted")
		return nil
	}
	comb, err := policy.Combine(c.Combine, prog, q.Atom.Pred)
	if err != nil {
		return inputErr(err)
	}
	vars := wire.QueryVars(q.Atom)
	if c.Unordered && len(vars) > 0 { // a ground query has one answer at most
		if comb.Method != policy.Max {
			return inputErr(fmt.Errorf("--unordered needs --combine max (noisy-or rescores answers after they are all known)"))
		}
		if err := streamAnswers(e, st, answerProg, q.Atom, opt, vars, c.Format, c.Top); err != nil {
			return err
		}
		thresholdNote(e.stderr, stats, th, "answers", "are not shown")
		return nil
	}
	res, err := policy.New(st, prog).Answers(e.ctx, q.Atom, policy.Request{Top: c.Top, Combination: comb, Stored: stored, Opt: opt})
	if err != nil {
		return queryErr(err)
	}
	answers, decided := res.Answers, res.Decided
	if comb.Method != policy.Max {
		combinationNote(e, comb)
	}
	if err := wire.PrintAnswers(e.ctx, e.stdout, c.Format, vars, answers, c.Explain); err != nil || c.Format == "json" {
		return err
	}
	switch {
	case decided > 0 && th.Min > 0:
		// in place of the note on what the threshold cut, which was not
		// evaluated
		fmt.Fprintln(e.stderr, policy.DecidedNote(c.Top, decided))
	case decided == 0:
		thresholdNote(e.stderr, stats, th, "answers", "are not shown")
	}
	return nil
}

// combinationNote says, unless quiet, how answers were combined when the
// rule files' directive chose it.
func combinationNote(e *env, comb policy.Combination) {
	if comb.Directive != "" && e.showProgress() {
		fmt.Fprintf(e.stderr, "confidences combined by %s, as the rule files' @aggregate directive says (--combine max for the best derivation)\n", comb.Directive)
	}
}

// streamAnswers writes every answer as the evaluator reads it out (at most
// top when top > 0), through a buffer, holding none of them
// (wire.AnswerStream).
func streamAnswers(e *env, st store.Store, prog *datalog.Program, q datalog.Atom, opt reasoner.Options, vars []string, format string, top int) error {
	s := wire.NewAnswerStream(e.stdout, format, vars)
	err := reasoner.QueryFunc(e.ctx, st, prog, q, opt, func(a reasoner.Answer) bool {
		// A failed write (a closed pipe when SIGPIPE is ignored) ends
		// the query instead of formatting the rest for nothing.
		return s.Write(a) && (top <= 0 || s.Count() < top)
	})
	if err != nil {
		s.Flush()
		return queryErr(err)
	}
	return s.Close()
}

// queryErr classifies an error of reasoner.Query or Count.
func queryErr(err error) error {
	switch {
	case errors.Is(err, reasoner.ErrInvalidProgram):
		return programErr(err)
	case errors.Is(err, reasoner.ErrUnknownPredicate):
		return inputErr(err)
	}
	if m, ok := errors.AsType[*reasoner.MemoryLimitError](err); ok {
		return fmt.Errorf("query: the evaluation needed %s of memory with %d facts derived, more than the cap of %s (--max-memory; default: the available memory); raise --min, query with fewer rules, or pass --max-memory SIZE (or --max-memory off)",
			sysmem.Format(m.InUse), m.Facts, sysmem.Format(m.Cap))
	}
	return err
}

// hintCapitalised prints a hint for every variable of a whose name, as
// written or in lower case, is an entity of the store
// (policy.CapitalisedVars).
func hintCapitalised(w io.Writer, st store.Store, a datalog.Atom) {
	for _, c := range policy.CapitalisedVars(st, a) {
		fmt.Fprintf(w, "hint: %s is a variable (a name that starts with an uppercase letter); the entity is written %s\n", c.Var, c.Entity)
	}
}

// openQuery parses the atom text, loads the --rules files (prog is nil
// without any) and opens the store for reading, then checks the atom
// against the store and the rules. The caller closes st.
func openQuery(e *env, text string, rules []string) (datalog.Query, *datalog.Program, store.Store, error) {
	q, err := parser.ParseTyped(text)
	if err != nil {
		return q, nil, nil, inputErr(err)
	}
	prog, err := loadRuleFlags(e, rules)
	if err != nil {
		return q, nil, nil, err
	}
	st, err := e.queryStore(prog != nil)
	if err != nil {
		return q, nil, nil, err
	}
	check := prog
	if check == nil {
		check = &datalog.Program{}
	}
	if err := checkQuery(st, check, q); errors.Is(err, reasoner.ErrUndefinedPredicate) {
		var ds datalog.Diagnostics
		if errors.As(err, &ds) && len(ds) > 0 {
			fmt.Fprintf(e.stderr, "drumql: warning: %s\n", ds[0].Msg)
		}
	} else if err != nil {
		st.Close()
		return q, nil, nil, err
	}
	return q, prog, st, nil
}

// queryStore opens the store at --db for a query. Without a store there,
// a query with rule files runs on an empty in-memory store (nothing is
// created on disk); without rule files it is an error.
func (e *env) queryStore(haveRules bool) (store.Store, error) {
	if _, err := os.Stat(e.cli.DB); errors.Is(err, os.ErrNotExist) && haveRules {
		return store.NewMemory(), nil
	}
	return e.openStore(true)
}

// checkQuery rejects a query the reasoner would reject
// (policy.CheckQuery); an unknown predicate is the user's error.
func checkQuery(st store.Store, prog *datalog.Program, q datalog.Query) error {
	unknown, err := policy.CheckQuery(st, prog, q.Atom)
	if unknown {
		return inputErr(err)
	}
	return err
}
