// Package mining is what `drumql mine` does around [miner.Mine]: its
// settings resolved into the miner's options and checked ([Settings]), the
// state of a run ([Run]) from training to the written files, the models of a run
// mined in head groups ([ModelSet], saved as a manifest and group model
// files by [Run.SaveGroups], read back by [LoadModels]), rules read off
// saved models instead of training ([ReadRules]), the comment that starts
// the mined file ([Run.Header]), the HTML report ([Run.Report]) and the
// head groups mined on a cluster's workers ([MineOnCluster], from the
// bytes of [SnapshotData]); the training's progress ([Run.Observe],
// [Run.Trained]) and the memory estimate of a run made before its graph is
// built ([EstimateMemory], [NewGraph]).
//
// It composes the miner with the rule scorers (package scoring) and the
// reasoner, which never import each other. Nothing here prints; the
// report's examples are looked up within a time budget, everything else is
// deterministic given the run.
package mining
