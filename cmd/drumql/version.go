package main

import (
	"fmt"
	"runtime"

	"github.com/drumql/drumql/internal/buildinfo"
	"github.com/drumql/drumql/miner"
)

// version is the drumql release; -ldflags "-X main.version=..." overrides it.
var version = "0.1.0-dev"

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	rev := ""
	if r := buildinfo.Revision(12); r != "" {
		rev = " (" + r + ")"
	}
	fmt.Fprintf(e.stdout, "drumql %s%s\ngo: %s %s/%s\nkernel: %s\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH, miner.Kernel())
	return nil
}
