package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestWorkerDefaults(t *testing.T) {
	host, _ := os.Hostname()
	if got, want := DefaultWorkerName(), fmt.Sprintf("%s:%d", host, os.Getpid()); got != want {
		t.Errorf("DefaultWorkerName() = %q, want %q", got, want)
	}
	t.Setenv("XDG_CACHE_HOME", "/cache")
	t.Setenv("HOME", "/home/w")
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "drumql", "snapshots")
	for flag, want := range map[string]string{"off": "", "": want, "/srv/snaps": "/srv/snaps"} {
		if got := CacheDir(flag); got != want {
			t.Errorf("CacheDir(%q) = %q, want %q", flag, got, want)
		}
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if _, err := os.UserCacheDir(); err == nil {
		return // this platform's cache directory needs neither variable
	}
	if got := CacheDir(""); got != "" {
		t.Errorf("CacheDir(\"\") without a cache directory = %q, want \"\" (in memory)", got)
	}
}

func TestCloseSignal(t *testing.T) {
	var o ConnOptions
	lost := o.CloseSignal()
	select {
	case <-lost:
		t.Fatal("closed before the connection was")
	default:
	}
	o.Closed()
	o.Closed() // told twice: closed once, no panic
	select {
	case <-lost:
	default:
		t.Error("not closed after Closed")
	}
}

func TestLogReconnects(t *testing.T) {
	var said []string
	logf := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	o := ConnOptions{Retry: 30 * time.Second}
	o.LogReconnects(logf, true)
	o.Disconnected(nil) // closed by its owner
	o.Disconnected(errors.New("EOF"))
	o.Reconnected("nats://b:4222")
	var w ConnOptions
	w.LogReconnects(logf, false)
	w.Disconnected(errors.New("EOF"))
	want := []string{"lost the connection to the server (EOF); reconnecting for up to 30s", "reconnected to nats://b:4222",
		"lost the connection to the server (EOF); reconnecting"}
	if !slices.Equal(said, want) {
		t.Errorf("said %q, want %q", said, want)
	}
}
