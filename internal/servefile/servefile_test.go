package servefile

import (
	"os"
	"strings"
	"testing"
)

// TestRoundTrip: the file written is read back while its process lives;
// Remove removes only this process's file; a file naming a dead process
// reads as none.
func TestRoundTrip(t *testing.T) {
	db := t.TempDir()
	if _, ok := Read(db); ok {
		t.Fatal("a file in an empty directory")
	}
	if err := Write(db, "http://127.0.0.1:7474"); err != nil {
		t.Fatal(err)
	}
	i, ok := Read(db)
	if !ok || i.URL != "http://127.0.0.1:7474" || i.PID != os.Getpid() {
		t.Fatalf("Read = %+v, %v", i, ok)
	}
	if h := i.Hint(); !strings.HasPrefix(h, "serve (pid ") || !strings.Contains(h, "http://127.0.0.1:7474) holds the store: stop it or use the API") {
		t.Errorf("Hint = %q", h)
	}
	if err := Remove(db); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Path(db)); !os.IsNotExist(err) {
		t.Errorf("the file is still there: %v", err)
	}
	// another process's file (pid 1 lives; a huge pid does not)
	if err := os.WriteFile(Path(db), []byte("http://x:1\npid 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(db); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Path(db)); err != nil {
		t.Errorf("Remove removed another process's file")
	}
	if err := os.WriteFile(Path(db), []byte("http://x:1\npid 2147483000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if i, ok := Read(db); ok {
		t.Errorf("a dead process's file read as %+v", i)
	}
}
