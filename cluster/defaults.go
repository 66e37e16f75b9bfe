package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// DefaultWorkerName is a worker's name when none is given: the host's
// name and the process id, "HOST:PID".
func DefaultWorkerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// CacheDir resolves a worker's snapshot cache as drumql worker --cache
// takes it: "off" keeps snapshots in memory only (""), "" is
// drumql/snapshots in the user cache directory (or in memory only when
// there is none), and any other value is the directory itself.
func CacheDir(flag string) string {
	switch flag {
	case "off":
		return ""
	case "":
		if dir, err := os.UserCacheDir(); err == nil {
			return filepath.Join(dir, "drumql", "snapshots")
		}
		return ""
	}
	return flag
}

// CloseSignal sets o.Closed to close the returned channel once the
// connection is closed for good (after reconnecting failed for o.Retry):
// the channel a Coordinator's Lost waits on. A Closed set before is
// replaced.
func (o *ConnOptions) CloseSignal() <-chan struct{} {
	lost := make(chan struct{})
	var once sync.Once
	o.Closed = func() { once.Do(func() { close(lost) }) }
	return lost
}

// LogReconnects sets o.Disconnected and o.Reconnected to tell logf of a
// connection lost ("lost the connection to the server (ERR);
// reconnecting", then "for up to RETRY", o.Retry, when limited) and found
// again ("reconnected to URL"). A connection its owner closed is not told.
func (o *ConnOptions) LogReconnects(logf func(format string, args ...any), limited bool) {
	retry := o.Retry
	o.Disconnected = func(err error) {
		switch {
		case err == nil:
			// closed by its owner
		case limited:
			logf("lost the connection to the server (%v); reconnecting for up to %s", err, retry)
		default:
			logf("lost the connection to the server (%v); reconnecting", err)
		}
	}
	o.Reconnected = func(url string) { logf("reconnected to %s", url) }
}
