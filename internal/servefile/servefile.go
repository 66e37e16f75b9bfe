// Package servefile is the file by which a running drumql serve says that
// it holds a store: DB/serve.addr, its address and its process id, written
// once it listens and removed when it stops. A command that finds the
// store in use reads it to name the server (and its API) rather than
// guess at the process holding the store.
package servefile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Name is the file's name in the store's directory.
const Name = "serve.addr"

// Info is what the file says: the server's URL (http://HOST:PORT) and the
// process that holds the store.
type Info struct {
	URL string
	PID int
}

// Hint is what a command refused by the server's hold on the store says.
func (i Info) Hint() string {
	return fmt.Sprintf("serve (pid %d, %s) holds the store: stop it or use the API (%s/v1/query, /v1/facts, ...)", i.PID, i.URL, i.URL)
}

// HintOr is the Hint of the server holding the store in db, or hint when
// none does.
func HintOr(db, hint string) string {
	if i, ok := Read(db); ok {
		return i.Hint()
	}
	return hint
}

// Path is the file of the store in db.
func Path(db string) string { return filepath.Join(db, Name) }

// Write writes the file of the store in db: url and this process's id. It
// is written whole or not at all (a temporary file renamed).
func Write(db, url string) error {
	tmp, err := os.CreateTemp(db, Name+".*")
	if err != nil {
		return fmt.Errorf("servefile: %w", err)
	}
	_, err = fmt.Fprintf(tmp, "%s\npid %d\n", url, os.Getpid())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), Path(db))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("servefile: %w", err)
	}
	return nil
}

// Remove removes the file of the store in db, if this process wrote it.
func Remove(db string) error {
	if i, err := read(db); err != nil || i.PID != os.Getpid() {
		return nil
	}
	if err := os.Remove(Path(db)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("servefile: %w", err)
	}
	return nil
}

// Read returns the file of the store in db when it names a process that
// is alive (a server killed with -9 leaves a file naming a dead one).
func Read(db string) (Info, bool) {
	i, err := read(db)
	if err != nil || i.PID <= 0 {
		return Info{}, false
	}
	if err := syscall.Kill(i.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return Info{}, false
	}
	return i, true
}

func read(db string) (Info, error) {
	f, err := os.Open(Path(db))
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	var i Info
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		i.URL = strings.TrimSpace(sc.Text())
	}
	if sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "pid "); ok {
			i.PID, _ = strconv.Atoi(strings.TrimSpace(n))
		}
	}
	if err := sc.Err(); err != nil {
		return Info{}, err
	}
	if i.URL == "" || i.PID == 0 {
		return Info{}, errors.New("servefile: not a serve.addr file")
	}
	return i, nil
}
