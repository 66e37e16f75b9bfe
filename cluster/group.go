package cluster

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/miner"
)

// EncodeRules writes rules in the result format of a job: JSON, every
// number exactly.
func EncodeRules(rules []miner.MinedRule) ([]byte, error) {
	b, err := json.Marshal(rules)
	if err != nil {
		return nil, pkgerr.Newf("cluster: encode rules: %w", err)
	}
	return b, nil
}

// DecodeRules reads rules written by EncodeRules.
func DecodeRules(b []byte) ([]miner.MinedRule, error) {
	var rules []miner.MinedRule
	if err := json.Unmarshal(b, &rules); err != nil {
		return nil, pkgerr.Newf("cluster: decode rules: %w", err)
	}
	return rules, nil
}

// manifestMagic starts a model-group manifest.
const manifestMagic = "drumql-model-groups 1\n"

// ManifestMagicLen is the length of the line that starts a manifest.
const ManifestMagicLen = len(manifestMagic)

// ErrBadManifest is returned by ReadManifest for a file that is not a valid
// model-group manifest.
var ErrBadManifest = errors.New("cluster: not a valid drumql model-group manifest")

// Manifest lists the model files of a run mined in head groups: what
// `drumql mine --head-groups N --save-model FILE` writes to FILE, the group
// models going to FILE.g1 … FILE.gN beside it. Each relation is scored by
// the model of the group that holds it.
//
// The file is the line "drumql-model-groups 1" followed by this struct as
// indented JSON; file names are relative to the manifest's directory.
type Manifest struct {
	Groups []ManifestGroup `json:"groups"`
}

// ManifestGroup is one group of a Manifest.
type ManifestGroup struct {
	// File is the group's model file, relative to the manifest.
	File string `json:"file"`
	// Heads are the group's head relations, sorted.
	Heads []string `json:"heads"`
	// SHA256 is the hex SHA-256 of the model file's bytes.
	SHA256 string `json:"sha256"`
}

// IsManifest reports whether head, the first bytes of a file (at least
// ManifestMagicLen of them), start a model-group manifest.
func IsManifest(head []byte) bool {
	return bytes.HasPrefix(head, []byte(manifestMagic))
}

// WriteManifest writes m in the manifest format.
func WriteManifest(w io.Writer, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return pkgerr.Newf("cluster: write manifest: %w", err)
	}
	if _, err := io.WriteString(w, manifestMagic+string(b)+"\n"); err != nil {
		return pkgerr.Newf("cluster: write manifest: %w", err)
	}
	return nil
}

// ReadManifest reads a manifest written by WriteManifest. A group without
// heads, a head in two groups or a file name that leaves the manifest's
// directory is an error wrapping ErrBadManifest.
func ReadManifest(r io.Reader) (*Manifest, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, pkgerr.Newf("cluster: read manifest: %w", err)
	}
	if !bytes.HasPrefix(b, []byte(manifestMagic)) {
		return nil, pkgerr.Newf("cluster: read manifest: bad magic: %w", ErrBadManifest)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b[len(manifestMagic):]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, pkgerr.Newf("cluster: read manifest: %w (%w)", err, ErrBadManifest)
	}
	if len(m.Groups) == 0 {
		return nil, pkgerr.Newf("cluster: read manifest: no groups: %w", ErrBadManifest)
	}
	seen := map[string]int{}
	for i, g := range m.Groups {
		if len(g.Heads) == 0 {
			return nil, pkgerr.Newf("cluster: read manifest: group %d has no heads: %w", i+1, ErrBadManifest)
		}
		if g.File == "" || strings.ContainsAny(g.File, `/\`) || g.File == "." || g.File == ".." {
			return nil, pkgerr.Newf("cluster: read manifest: group %d: file %q is not a plain file name: %w", i+1, g.File, ErrBadManifest)
		}
		for _, h := range g.Heads {
			if j, dup := seen[h]; dup {
				return nil, pkgerr.Newf("cluster: read manifest: head %q is in groups %d and %d: %w", h, j, i+1, ErrBadManifest)
			}
			seen[h] = i + 1
		}
	}
	return &m, nil
}

// SHA256 returns the hex SHA-256 of b: the content address of snapshots and
// the checksum of manifest files.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
