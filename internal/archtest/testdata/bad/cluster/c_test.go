package cluster

import (
	_ "github.com/drumql/drumql/datalog"
	_ "github.com/drumql/drumql/reasoner"
	_ "github.com/nats-io/nats-server/v2/server"
)
