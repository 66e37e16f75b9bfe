// Command mutate checks that the tests catch plausible bugs: it applies
// each mutation of a list, one at a time, runs the tests it names, and
// reports which tests fail (the mutation is caught) or that none does (it
// survives).
//
// Run it from the module root:
//
//	go run ./scripts/mutate                  # every mutation of scripts/mutate/mutations.json
//	go run ./scripts/mutate -only 'marks|sum' # those whose name matches
//	go run ./scripts/mutate -check           # only check that every snippet is found
//
// A mutation names the file, an original snippet that must occur exactly
// once in it, its replacement, the packages to test and an optional -run
// pattern; "must" marks one the tests are required to catch. The source
// tree is never written: the mutated file is handed to `go test` through
// -overlay, so an interrupted run leaves nothing behind. A file that no
// longer exists (code moves) is looked for by its snippet in every .go file
// of the module, and the report says where it was found.
//
// The report gives, per mutation, the tests that failed or SURVIVED, and a
// summary: caught/total with the percentage. The exit status is 1 when a
// "must" mutation survives or a mutation cannot be applied or built, 0
// otherwise. It is run by hand, not in CI (the full list takes minutes to
// tens of minutes).
package main
