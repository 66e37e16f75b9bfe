//go:build drumql_nospacecheck

package store

// A build with the tag drumql_nospacecheck writes without checking the free
// space first, so that a test can fill a device during a write; see
// noSpaceCheck. Never ship such a build.
func init() { noSpaceCheck = true }
