// Package exchange converts rule files between drumql's Datalog dialect and
// the formats of other rule learners: it reads AnyBURL's rule files and
// AMIE 3's TSV output into weighted [datalog.Rule] values, and writes
// drumql's rules in AnyBURL's format (which SAFRAN and PyClause read too).
// It builds rules as [datalog] values, so names are quoted by the printer
// ([datalog.QuoteName]) as the dialect needs; it never formats Datalog by
// hand.
//
// # The formats, and where they are described
//
// AnyBURL (also SAFRAN's and PyClause's input): one rule per line,
// tab-separated: the number of predictions the rule makes (body
// groundings), the number of them that are correct, the confidence
// (correct/predicted) and the rule, written `head <= body`: atoms
// `r(X,Y)` without spaces inside, body atoms separated by ", ", variables
// single capital letters (X and Y in the head, A, B, ... in the body, in
// the order of the path from the head's variable), every other term a
// constant (an entity name of at least two characters). Rule shapes:
// cyclic `r(X,Y) <= b1(X,A), b2(A,Y)`; with a constant in the head,
// `r(X,c) <= b(X,d)`, `r(X,c) <= b(X,A)`, `r(c,Y) <= b(Y,A), b2(A,d)`;
// `r(X,X) <= b(X,d)`; and zero-body rules `r(X,c) <= ` (a prior for c).
// Sources: SAFRAN's manual, "Format of the rule file"
// (github.com/OpenBioLink/SAFRAN, docs/source/manual/input_fmt.rst: the
// columns, the " <= " and ", " separators, the atom order from X to Y;
// names may not contain whitespace), SAFRAN's properties
// (docs/source/manual/properties.rst: UNSEEN_NEGATIVE_EXAMPLES, default 5;
// REFLEXIV_TOKEN me_myself_i for rules learned with REWRITE_REFLEXIV),
// and PyClause's documentation (github.com/symbolic-kg/PyClause,
// docs/data/rule_types.rst: the rule types B, U_c, U_d, Z, U_xxc, U_xxd and
// the variable order; docs/data/loading_rules.rst: the column order and
// the confidence recomputed as support/(predictions + 5);
// docs/conceptual/rules.rst: rules are read under object identity, every
// variable and constant of a rule a different entity).
//
// AMIE 3: a header line of tab-separated column names, then one rule per
// line: the rule, then its measures. A rule is its body atoms then " => "
// and the head atom, each atom three whitespace-separated terms `?a
// relation ?b` (variables start with "?"; AMIE separates the terms and the
// atoms by two spaces). The measures read here are Head Coverage, Std
// Confidence (or Standard Confidence), PCA Confidence, Positive Examples
// (or Support), Body size and PCA Body size; the column names differ
// between AMIE versions, so columns are found by name. Sources: AMIE's
// README (github.com/dig-team/amie: default thresholds, PCA confidence
// 0.1 and head coverage 0.01) and its rule printing (rules/.../Rule.java,
// getRuleString and the header of printRuleHeaders; format/RuleFormatter.java:
// the column names of newer versions; format/AnyBurlFormatter.java: AMIE's
// own AnyBURL export writes PCA Body size, Support and PCA Confidence as
// AnyBURL's three columns).
//
// # Confidence and weight
//
// A drumql weight is a rule's calibrated confidence, in (0, 1]. drumql
// mine weights a rule by its smoothed confidence support/(body + 5); the
// tools that apply AnyBURL's rules compute the same from its two counts,
// correct/(predicted + 5) (SAFRAN's UNSEEN_NEGATIVE_EXAMPLES, PyClause's
// num_unseen, both 5 by default) and ignore the confidence column. So by
// default a rule read from AnyBURL is weighted correct/(predicted +
// Smoothing), and one read from AMIE Positive Examples/(PCA Body size +
// Smoothing) (with [ReadOptions.Std], Body size: the standard confidence),
// rounded to 4 significant digits as drumql mine rounds its weights; with
// [ReadOptions.Column] the weight is the confidence column as written
// (AnyBURL's third column; AMIE's PCA or Std Confidence). A rule with
// weight 0 (no correct prediction) is left out and counted.
//
// # What has no Datalog form, and what AnyBURL cannot express
//
// AnyBURL's zero-body rules `r(X,c) <= ` say how often c fills a slot of r
// for any X: unsafe as Datalog. drumql keeps such priors in the ranking
// directive, not as rules: `prior = 1` ranks the candidates no rule
// reaches by how many facts of r they fill the slot of in the graph. That
// directive is per relation and counts on the graph; it cannot carry a
// confidence per constant. So a relation with zero-body rules gets the
// directive (`@aggregate max(prior = 1) for r.`, or one for the whole file
// when every relation has them), and the zero-body rules themselves are
// counted in [Report] and left out.
//
// Writing, a rule is written when AnyBURL can express it: a binary head
// and a body of binary atoms that form a path from the head's variable
// (through X to Y for a rule with two head variables), as above. AnyBURL
// reads rules under object identity, so a comparison `V != W` between two
// terms of the rule is implied and dropped. Rules with negation, built-in
// tests, expressions or aggregates, other comparisons, atoms of another
// arity, bodies that are not such a path, or names AnyBURL's syntax cannot
// delimit are skipped and counted by reason ([WriteReport]). Reading,
// object identity is restated the way drumql mine states it for its own
// chain rules (see [chainIdentity]), so that a mined file written to
// AnyBURL and read back gives the same rules.
//
// # What a conversion says
//
// [Report.Notes] and [WriteReport.Notes] word what a read or a write left
// out or changed, a sentence each, [NotWritten] what of a program AnyBURL's
// format has no place for, and [Header] the comment that starts a
// converted Datalog file; [Sniff] names the format a file looks like.
// [WriteDatalog] writes the rules read as a drumql rule file, and
// [ReadDatalog] reads one to be written in AnyBURL's format. They
// print nothing: the caller does.
package exchange
