package server

import (
	"os"
	"path/filepath"
	"slices"
)

// EditsFile is the edits file ([Config.Edits]) of the store in the
// directory db: chosen (--edits) when it is not empty, else edits.dl
// inside that directory, so that it goes with the store it belongs to
// (never into the working directory of --db drumql.db).
func EditsFile(chosen, db string) string {
	if chosen != "" {
		return chosen
	}
	return filepath.Join(filepath.Clean(db), "edits.dl")
}

// RuleFiles returns the rule files a server loads on start: files, and
// after them the edits file when it exists and is not one of files already
// (under any name: the same file). files is not changed.
func RuleFiles(files []string, edits string) []string {
	files = slices.Clone(files)
	if _, err := os.Stat(edits); err == nil && !slices.ContainsFunc(files, func(f string) bool { return sameFile(f, edits) }) {
		files = append(files, edits)
	}
	return files
}

// sameFile reports whether the paths name the same file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
