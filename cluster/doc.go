// Package cluster mines the head-relation groups of a run across machines,
// over a NATS JetStream work queue. It is transport only: what a group is
// and how it is mined are the miner's ([miner.HeadGroups], [miner.Mine]);
// this package ships the snapshot, the options and the groups to the
// workers and their results back.
//
// # Groups
//
// Mining splits by head relation: miner.HeadGroups splits the head
// relations into N groups balanced by their number of training queries, and
// every group is mined by miner.Mine with the run's options and
// Config.Heads = the group, exactly as `drumql mine --heads <group>` (or
// `drumql mine --head-groups N` in one process) mines it. The rules of the
// groups are merged in head order (miner.MergeRules); since the groups are
// disjoint, the rules of every head are those its group gives.
//
// # Across machines
//
// A [Coordinator] puts the graph snapshot (the snapshot file format of
// miner.WriteSnapshot) in a JetStream object store under its SHA-256, and
// enqueues one [Job] per group on a work-queue stream; [Worker]s take the
// jobs, fetch the snapshot unless they have it cached, mine the group,
// store the result (the group's model file and rules) in the object store,
// report it on the run's status stream and only then acknowledge the job. A
// worker that dies costs only its job's time: JetStream delivers the job
// again after the ack wait; a live worker sends in-progress heartbeats so
// that long jobs are not delivered twice. Every run has its own id: its
// streams and bucket are named after it (see [Names]) and removed when the
// run ends, unless kept. A coordinator restarted with the same run id
// resumes the run: finished groups are read back, not mined again.
//
// Since every worker runs the same deterministic code on the same snapshot,
// the rules of a clustered run are byte-identical to those of the
// in-process run with the same seed and partition; a worker whose drumql
// version differs from the coordinator's refuses the job.
package cluster
