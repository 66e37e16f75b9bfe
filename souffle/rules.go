package souffle

import (
	"fmt"
	"slices"

	"github.com/drumql/drumql/datalog"
)

// ReadRules reads the Soufflé file path, whose text is src, for the
// commands that take rule files over a store (check, infer, query,
// explain, eval, serve): its clauses and inline facts, as drumql's
// Datalog, positions those of the Soufflé source. Its `.input` relations
// are the store's (their facts are loaded with `drumql load`), and its
// `.output`, `.printsize` and `.limitsize` directives are drumql run's
// (ignored here). A feature whose meaning is part of drumql run's
// evaluation is an error at its declaration, naming drumql run: a choice
// domain, the subsumption of a relation, `.limitsize` and the
// `magic-transform` pragma. An error is an *Error, or datalog.Diagnostics.
func ReadRules(path string, src []byte) (*datalog.Program, error) {
	p, prog, err := Read(path, src)
	if err != nil {
		return nil, err
	}
	var ds datalog.Diagnostics
	runOnly := func(at pos, what string) {
		ds = append(ds, datalog.Diagnostic{Pos: datalog.Pos{File: at.file, Line: at.line, Col: at.col}, Severity: datalog.Error,
			Msg: fmt.Sprintf("%s: run the program with drumql run (check, infer, query and serve take its clauses, not this)", what)})
	}
	for _, name := range p.Order {
		d := p.Decls[name]
		if len(d.Choice) > 0 {
			runOnly(d.At, "the choice domain of "+name)
		}
		if slices.Contains(p.subsumed, name) {
			runOnly(d.At, "the subsumption of "+name)
		}
	}
	for _, l := range p.Limits {
		runOnly(l.At, ".limitsize "+l.Rel)
	}
	if p.Magic {
		runOnly(p.magicAt, `.pragma "magic-transform"`)
	}
	if len(ds) > 0 {
		ds.Sort()
		return nil, ds
	}
	return prog, nil
}
