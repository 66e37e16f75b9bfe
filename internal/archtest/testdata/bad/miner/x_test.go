package miner_test

import _ "github.com/drumql/drumql/miner"
