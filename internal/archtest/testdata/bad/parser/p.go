package parser

import _ "github.com/drumql/drumql/datalog"
