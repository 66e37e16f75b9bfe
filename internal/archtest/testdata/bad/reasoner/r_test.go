package reasoner

import (
	_ "github.com/drumql/drumql/parser"
	_ "golang.org/x/tools/txtar"
)
