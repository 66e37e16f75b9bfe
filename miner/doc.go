// Package miner learns weighted Datalog rules from a knowledge graph with
// DRUM (Sadeghian et al., "DRUM: End-To-End Differentiable Rule Mining On
// Knowledge Graphs", NeurIPS 2019), following the original code
// (github.com/alisadeghian/DRUM: src/model.py for the model and the loss,
// src/main.py for the defaults).
//
// # Pipeline
//
// [Mine] is what `drumql mine` does: it trains a model ([TrainGraph]) and
// reads its rules off it ([ExtractRules]: the chain rules of [Model.Rules]
// and the rules with constants of [Graph.ConstantRules], merged by
// [MergeRules]), for every head relation or, with [Options.HeadGroups], for
// head groups balanced by training queries ([HeadGroups]), one model each.
// [Options] gathers [Config], [ExtractOptions] and [ConstOptions]; their zero
// values mean the defaults (the Default… constants), the ones drumql mine
// uses, and they travel as JSON to the machines of a clustered run (package
// cluster), which call the same Mine. [EstimateMemory] and [SoftMemoryLimit] keep a
// run within the machine's memory.
//
// # Data
//
// The graph is the store's binary base facts (for a DRUM dataset: facts ∪
// train). Training queries come from the "train" split (all graph facts when
// there is none). Every triple r(h, t) is asked in both directions: query r
// ("given t, find h", head prediction) and query inv_r ("given h, find t",
// tail prediction). During training a batch's own edges are hidden with an
// edge-id mask. Queries are grouped by relation: a batch holds up to
// Config.Batch triples of one relation, in file order, asked in both
// directions, and batches run in the file order of their first triple.
//
// # Large graphs
//
// Three bounds keep the cost of an epoch in proportion to the graph, not to
// queries × edges, and change nothing on graphs below them (none of the
// benchmark datasets but WN18RR's two largest relations reach any):
// Config.MaxQueries (2048) samples at most that many training triples of
// each relation afresh every epoch (seeded, kept in file order) and at most
// that many validation triples once; Config.MaxFanOut (10,000) stops hubs
// (an entity with more neighbours through one operator than that: a gender
// value, a country) from passing mass through that operator, since such a
// step spreads every query that reaches it over most of the graph and ranks
// nothing; and a batch whose entity × column blocks would pass 1 GiB is
// propagated in chunks of columns. All three depend on the graph and the
// configuration only, never on the machine.
//
// # Model
//
// For a query relation q the attention over the 2R+1 operators (R relation
// matrices M_k with M_k[head, tail] = 1, their R transposes, identity) at
// step t of rank j is a_{j,t} = softmax([fw_t; bw_t]·W0 + b0), where fw and
// bw are the outputs of rank j's bidirectional LSTM run over T copies of the
// query embedding e_q. Each rank propagates v_0 = one_hot(given) through
// u = Σ_k a_k M_k v + a_I v followed by per-column L1 normalisation, T times;
// the score vector is the sum of the ranks' last vectors and the loss of a
// query is −log max(s[answer], 1e-20), averaged over the batch. Gradients are
// computed by hand-written backpropagation and applied with Adam after
// element-wise clipping. Dense parameters are float64; the entity × batch
// blocks of the propagation are float32 and use miner/internal/sparse. Each
// step only touches the rows reachable from the given entities, and within
// a row only the columns (queries) that reach it: every active row carries
// a mask of its columns, and a step makes one pass over the entries out of
// its rows for all operators at once (incidence lists), moving the masked
// columns one by one or, from 8 columns on, the whole row with the vector
// kernels; a frontier dense in rows and columns uses a gather over every
// row instead. Queries of a batch with the same given entity share a column
// (they propagate identically). In training the last step is evaluated at
// the answers only (its normalisation needs only column degrees), which is
// exact and avoids the largest product.
//
// # Rules
//
// [Model.Rules] reads rules off the attention: a body k_1..k_T scores
// Σ_j Π_t a_{j,t,k_t}; identity steps are skipped, inverse operators become
// swapped arguments. A rule for head r is written r(A, B) :- p1(…), …, with
// the body a path of atoms from A to B through C, D, …, and A != B when the
// path has two or more atoms. By default DRUM proposes and the graph
// chooses: the Candidates best bodies by score are counted on the graph, and
// so are the bodies of the paths that join the two ends of PathSamples
// sampled facts of the head (seeded; the bodies that join the most sampled
// facts first, PathCandidates of them), each with its DRUM score computed
// exactly from the attention; the MaxRules best by smoothed confidence,
// support/(body+5), are kept with that confidence as their weight. A body
// none of whose consecutive steps meet is dropped before counting; a count
// past SupportBudget edge visits is an estimate, scaled from a seeded random
// sample of the body's starts (MinedRule.Sampled), and counted again exactly
// when it is among the head's 25 best and its sample projects at most
// 5,000,000 visits for all the starts; a head stops counting after
// HeadBudget visits. WeightScore keeps the MaxRules best bodies by score, weighted by
// their score over the head's best.
//
// # Model file format
//
// [Model.Save] writes the magic line "drumql-drum-model 1\n", a little-endian
// uint32 byte count n, n bytes of JSON (an object with "config", "relations"
// (names in operator order), "blocks" (name, Rows, Cols of every parameter
// block) and "history" (per-epoch statistics)), then every parameter as a
// little-endian IEEE-754 float64, block after block in header order, each
// block row-major.
//
// # Determinism
//
// The only randomness is the parameter initialisation and the epochs'
// samples of large relations, drawn from PCG generators seeded with
// Config.Seed. Work is split into independent
// (direction, rank) tasks whose results are combined in a fixed order, so the
// same seed gives byte-identical parameters and rules for any Config.Threads.
package miner
