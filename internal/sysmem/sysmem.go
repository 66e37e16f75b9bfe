// Package sysmem reads how much memory this process may use: the kernel's
// MemAvailable and the cgroup (v2 or v1) memory limit; and a memory cap as
// the commands take it (ParseCap: a size, "off", or the available memory).
package sysmem

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Limit is the memory available to the process and where the number comes
// from ("MemAvailable" or "cgroup limit").
type Limit struct {
	Bytes  int64
	Source string
}

// Available returns the smaller of /proc/meminfo's MemAvailable and the
// cgroup memory limit (cgroup v2 memory.max, else v1
// memory.limit_in_bytes). ok is false when neither can be read.
func Available() (lim Limit, ok bool) {
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if n, found := ParseMemInfo(string(b)); found {
			lim, ok = Limit{Bytes: n, Source: "MemAvailable"}, true
		}
	}
	if n, found := cgroupLimit(); found && (!ok || n < lim.Bytes) {
		lim, ok = Limit{Bytes: n, Source: "cgroup limit"}, true
	}
	return lim, ok
}

// ParseMemInfo returns MemAvailable, in bytes, from the text of
// /proc/meminfo.
func ParseMemInfo(text string) (int64, bool) {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, false
			}
			if len(f) == 3 && f[2] == "kB" {
				n *= 1024
			}
			return n, true
		}
	}
	return 0, false
}

// ParseCgroupLimit reads a cgroup memory limit file's content: "max" (v2)
// or a value of 2^60 or more (v1's "unlimited") mean no limit.
func ParseCgroupLimit(text string) (int64, bool) {
	s := strings.TrimSpace(text)
	if s == "" || s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= 1<<60 {
		return 0, false
	}
	return n, true
}

// CgroupV2Path returns the cgroup v2 path of a process from the text of
// /proc/self/cgroup (the "0::/path" line).
func CgroupV2Path(text string) (string, bool) {
	for line := range strings.SplitSeq(text, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p, true
		}
	}
	return "", false
}

func cgroupLimit() (int64, bool) {
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		if p, ok := CgroupV2Path(string(b)); ok {
			// The limit of the process's own cgroup, or of the root view
			// when the cgroup namespace hides the path.
			for _, dir := range []string{filepath.Join("/sys/fs/cgroup", p), "/sys/fs/cgroup"} {
				if b, err := os.ReadFile(filepath.Join(dir, "memory.max")); err == nil {
					return ParseCgroupLimit(string(b))
				}
			}
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err == nil {
		return ParseCgroupLimit(string(b))
	}
	return 0, false
}

// ParseSize reads a byte count such as "512M", "8G", "1.5GB", "2TiB" or
// "123456" (bytes).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(mult) >= 1<<62 {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional K, M, G or T suffix (e.g. 8G)", s)
	}
	return int64(v * float64(mult)), nil
}

// Format writes n bytes as a short human-readable size (MB below 10 GB).
func Format(n int64) string {
	if n < 10<<30 {
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}
