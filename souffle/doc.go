// Package souffle reads Soufflé programs as their authors wrote them and
// runs them as Soufflé does: `drumql run PROG.dl [-F DIR] [-D DIR|-]`.
//
// A Soufflé file (one with a `.decl`, the extension `.souffle`, or the
// line `@dialect souffle`) is preprocessed (`#include`, `#define`,
// `#ifdef`), its declarations and I/O directives are read (`.decl`,
// `.type`, `.input`, `.output`, `.printsize`), and its clauses are
// translated token by token into drumql's dialect (Soufflé's variables,
// which may be lowercase, become drumql's; relation names are quoted) and
// parsed by the parser package, positions mapped back to the Soufflé
// source. The program is then evaluated in memory by the reasoner, no
// store needed, and every `.output` relation written as Soufflé writes it.
//
// What is not supported fails with one message naming the feature at
// file:line:col ("unsupported: user-defined functors (.functor)");
// docs/SOUFFLE.md lists what is supported.
package souffle
