package profile

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// The environment variables that ask for profiles.
const (
	CPUVar = "DRUMQL_CPUPROFILE"
	MemVar = "DRUMQL_MEMPROFILE"
	// TraceVar names the file of an execution trace of the run (go tool
	// trace): where goroutines waited for a processor, the network, a
	// lock or the collector.
	TraceVar = "DRUMQL_TRACE"
)

// Requested reports whether the environment asks for a profile.
func Requested() bool {
	return os.Getenv(CPUVar) != "" || os.Getenv(MemVar) != "" || os.Getenv(TraceVar) != ""
}

// Start starts the CPU profile when CPUVar names a file and the execution
// trace when TraceVar does, and returns the function that stops them and,
// when MemVar names a file, writes the allocation profile there (on a
// best-effort basis: a file that cannot be created is skipped). The error,
// naming the variable, is that of creating a file or starting a profile.
func Start() (stop func(), err error) {
	var cpu, tr *os.File
	if path := os.Getenv(TraceVar); path != "" {
		if tr, err = os.Create(path); err != nil {
			return nil, fmt.Errorf("%s: %w", TraceVar, err)
		}
		if err := trace.Start(tr); err != nil {
			tr.Close()
			return nil, fmt.Errorf("%s: %w", TraceVar, err)
		}
	}
	if path := os.Getenv(CPUVar); path != "" {
		if cpu, err = os.Create(path); err != nil {
			if tr != nil {
				trace.Stop()
				tr.Close()
			}
			return nil, fmt.Errorf("%s: %w", CPUVar, err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			if tr != nil {
				trace.Stop()
				tr.Close()
			}
			return nil, fmt.Errorf("%s: %w", CPUVar, err)
		}
	}
	return func() {
		if tr != nil {
			trace.Stop()
			tr.Close()
		}
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
