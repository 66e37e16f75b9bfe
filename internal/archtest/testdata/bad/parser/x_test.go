package parser_test

import (
	_ "github.com/drumql/drumql/parser"
	_ "github.com/drumql/drumql/store"
)
