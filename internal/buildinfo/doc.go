// Package buildinfo reads what the Go toolchain recorded in the running
// binary about the source it was built from (runtime/debug.ReadBuildInfo's
// vcs settings): the commit, and whether the tree had changes not
// committed. A binary built without them (go run, a test, -buildvcs=false)
// has no commit; the functions then return what they say they return for
// none. The package has no state.
package buildinfo
