package cluster

import (
	_ "github.com/drumql/drumql/miner"
	_ "github.com/nats-io/nats.go/jetstream"
)
