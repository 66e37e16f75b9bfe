// Package archtest holds the architecture test: the import edges between
// drumql's packages, their tests' included, must follow the dependency graph
// of docs/ARCHITECTURE.md, "The dependency rule".
package archtest
