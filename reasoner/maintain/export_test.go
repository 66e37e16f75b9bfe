package maintain

// DerivedOf is derivedOf for the black-box tests of this package
// (reports_test.go): m's derived facts, program facts included.
var DerivedOf = derivedOf
