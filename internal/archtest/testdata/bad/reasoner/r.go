package reasoner

import (
	_ "github.com/drumql/drumql/datalog"
	_ "github.com/drumql/drumql/miner"
)
