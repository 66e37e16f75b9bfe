// Package atomicfile writes files so that an interrupted write never leaves
// half a file: the data goes to a temporary file in the same directory,
// which is then renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path through a temporary file (named after path,
// in its directory) and a rename. On error the temporary file is removed and
// path is left as it was.
func WriteFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
