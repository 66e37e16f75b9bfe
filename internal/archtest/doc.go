// Package archtest holds the architecture test: the import edges between
// drumql's packages must follow the dependency graph of DESIGN.md section 1.
package archtest
