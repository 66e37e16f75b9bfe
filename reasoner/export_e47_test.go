package reasoner

import "testing"

// DerivedE47 returns m's derived facts, program facts included ("pred(a,b)"
// -> confidence, in float64), for the black-box tests of the
// *_e47_test.go files: Change.Facts and Record are checked against it.
func DerivedE47(t testing.TB, m *Materialisation) map[string]float64 { return derivedOf(t, m) }
