package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
