package sysmem

import (
	"os"
	"strconv"
	"strings"
)

// Mapped returns the bytes of this process's resident memory that map
// files or shared memory (/proc/self/statm's third field: Linux's RssFile
// plus RssShmem): the pages of the store's memory-mapped tables and logs,
// which the Go runtime does not count, beside the executable's own. ok is
// false when it cannot be read (outside Linux).
func Mapped() (n int64, ok bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	return ParseStatmShared(string(b), int64(os.Getpagesize()))
}

// ParseStatmShared returns the third field of the text of /proc/PID/statm
// (resident shared pages) times pageSize.
func ParseStatmShared(text string, pageSize int64) (int64, bool) {
	f := strings.Fields(text)
	if len(f) < 3 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * pageSize, true
}
