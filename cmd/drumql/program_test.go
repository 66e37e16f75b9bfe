package main

import "github.com/drumql/drumql/rulefile"

// source returns the text of a file (rulefile.Source), for the tests that
// read what a command wrote.
func source(file string) []byte { return rulefile.Source(file) }
