package cluster

import (
	"fmt"
	"os"
	"path/filepath"
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
