package store

import _ "github.com/dgraph-io/badger/v4"
