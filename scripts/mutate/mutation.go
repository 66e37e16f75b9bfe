package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Mutation is one planted bug: Old, which must occur exactly once in File,
// replaced by New; the tests of Pkgs (with -run Run, when set) should fail.
type Mutation struct {
	Name string   `json:"name"`
	Must bool     `json:"must,omitempty"`
	Pkgs []string `json:"pkgs"`
	Run  string   `json:"run,omitempty"`
	File string   `json:"file"`
	Old  string   `json:"old"`
	New  string   `json:"new"`
	// Note says why a mutation is known to survive (an equivalent
	// mutation), for the report.
	Note string `json:"note,omitempty"`
}

// loadList reads a JSON list of mutations and checks its fields.
func loadList(path string) ([]Mutation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ms []Mutation
	if err := dec.Decode(&ms); err != nil {
		return nil, fmt.Errorf("mutate: %s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, m := range ms {
		switch {
		case m.Name == "":
			return nil, fmt.Errorf("mutate: %s: mutation %d has no name", path, i)
		case seen[m.Name]:
			return nil, fmt.Errorf("mutate: %s: two mutations named %q", path, m.Name)
		case m.File == "" || m.Old == "" || len(m.Pkgs) == 0:
			return nil, fmt.Errorf("mutate: %s: %s: want file, old and pkgs", path, m.Name)
		case m.Old == m.New:
			return nil, fmt.Errorf("mutate: %s: %s: old and new are the same", path, m.Name)
		}
		if m.Run != "" {
			if _, err := regexp.Compile(m.Run); err != nil {
				return nil, fmt.Errorf("mutate: %s: %s: run: %w", path, m.Name, err)
			}
		}
		seen[m.Name] = true
	}
	return ms, nil
}

// errNotFound is returned by locate when no file holds the snippet once.
var errNotFound = errors.New("snippet not found")

// located is where a mutation applies: the file (relative to the root),
// its content, and whether it was found by searching, the named file being
// gone.
type located struct {
	file    string
	src     []byte
	moved   bool
	mutated []byte
}

// locate finds m's snippet under root: in m.File when it exists (exactly
// once), otherwise in the one .go file of the tree that holds it exactly
// once.
func locate(root string, m Mutation) (located, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
	if err == nil {
		if n := bytes.Count(src, []byte(m.Old)); n != 1 {
			return located{}, fmt.Errorf("%w: %d occurrences in %s, want 1", errNotFound, n, m.File)
		}
		return located{file: m.File, src: src, mutated: replaceOnce(src, m)}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return located{}, err
	}
	var hits []located
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte(m.Old)); n > 0 {
			rel, _ := filepath.Rel(root, path)
			l := located{file: filepath.ToSlash(rel), src: b, moved: true}
			if n == 1 {
				l.mutated = replaceOnce(b, m)
			}
			hits = append(hits, l)
		}
		return nil
	})
	if err != nil {
		return located{}, err
	}
	if len(hits) != 1 || hits[0].mutated == nil {
		var files []string
		for _, h := range hits {
			files = append(files, h.file)
		}
		slices.Sort(files)
		return located{}, fmt.Errorf("%w: %s is gone, and the snippet is in %d files %v, want exactly once in one", errNotFound, m.File, len(files), files)
	}
	return hits[0], nil
}

// replaceOnce returns src with m's snippet replaced.
func replaceOnce(src []byte, m Mutation) []byte {
	return bytes.Replace(src, []byte(m.Old), []byte(m.New), 1)
}
