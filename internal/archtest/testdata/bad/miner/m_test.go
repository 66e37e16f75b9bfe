package miner

import _ "github.com/nats-io/nats-server/v2/server"
