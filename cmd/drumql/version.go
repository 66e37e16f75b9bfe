package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/drumql/drumql/miner"
)

// version is the drumql release; -ldflags "-X main.version=..." overrides it.
var version = "0.1.0-dev"

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	fmt.Fprintf(e.stdout, "drumql %s%s\ngo: %s %s/%s\nkernel: %s\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH, miner.Kernel())
	return nil
}
