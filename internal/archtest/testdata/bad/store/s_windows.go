//go:build windows

package store

import _ "github.com/drumql/drumql/datalog"
