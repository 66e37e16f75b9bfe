package profile

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// The environment variables that ask for profiles.
const (
	CPUVar = "DRUMQL_CPUPROFILE"
	MemVar = "DRUMQL_MEMPROFILE"
)

// Requested reports whether the environment asks for a profile.
func Requested() bool { return os.Getenv(CPUVar) != "" || os.Getenv(MemVar) != "" }

// Start starts the CPU profile when CPUVar names a file, and returns the
// function that stops it and, when MemVar names a file, writes the
// allocation profile there (on a best-effort basis: a file that cannot be
// created is skipped). The error, naming CPUVar, is that of creating the
// CPU profile's file or starting it.
func Start() (stop func(), err error) {
	var cpu *os.File
	if path := os.Getenv(CPUVar); path != "" {
		if cpu, err = os.Create(path); err != nil {
			return nil, fmt.Errorf("%s: %w", CPUVar, err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("%s: %w", CPUVar, err)
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if path := os.Getenv(MemVar); path != "" {
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}
	}, nil
}
