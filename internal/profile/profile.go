package profile

import (
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/drumql/drumql/internal/atomicfile"
)

// The environment variables that ask for profiles.
const (
	CPUVar = "DRUMQL_CPUPROFILE"
	MemVar = "DRUMQL_MEMPROFILE"
	// TraceVar names the file of an execution trace of the run (go tool
	// trace): where goroutines waited for a processor, the network, a
	// lock or the collector.
	TraceVar = "DRUMQL_TRACE"
	// PeakVar names the file of a heap profile taken when the live heap
	// was at its largest (go tool pprof -sample_index=inuse_space): what
	// held the memory at the peak, where DRUMQL_MEMPROFILE, taken at the
	// end, shows what is left.
	PeakVar = "DRUMQL_HEAPPEAK"
)

// peakEvery is how often the live heap is read for PeakVar, and peakStep
// the growth over the largest live heap profiled so far that takes
// another profile: a run whose heap grows for minutes writes a few dozen
// profiles, not one a poll.
const (
	peakEvery = 200 * time.Millisecond
	peakStep  = 1.05
)

// Requested reports whether the environment asks for a profile.
func Requested() bool {
	return os.Getenv(CPUVar) != "" || os.Getenv(MemVar) != "" || os.Getenv(TraceVar) != "" || os.Getenv(PeakVar) != ""
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
	stopPeak := watchPeak(os.Getenv(PeakVar))
	return func() {
		stopPeak()
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

// watchPeak, when path is not empty, reads the live heap every peakEvery
// and writes the heap profile to path each time it has grown by peakStep
// over the largest profiled (through a temporary file renamed over path,
// writeHeap: the file is always a whole profile). The function it returns stops the
// watch and waits for it.
func watchPeak(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var largest uint64
		tick := time.NewTicker(peakEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			live := sample[0].Value.Uint64()
			if float64(live) <= float64(largest)*peakStep {
				continue
			}
			largest = live
			if writeHeap(path) != nil {
				return
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// writeHeap writes the heap profile to path through a temporary file
// renamed over it (internal/atomicfile).
func writeHeap(path string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		return err
	}
	return f.Commit()
}
