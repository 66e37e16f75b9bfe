package buildinfo

import (
	"runtime/debug"
	"testing"
)

// built are the settings of a build from a commit with changes.
var built = []debug.BuildSetting{
	{Key: "-compiler", Value: "gc"},
	{Key: "vcs", Value: "git"},
	{Key: "vcs.revision", Value: "0123456789abcdef0123"},
	{Key: "vcs.time", Value: "2026-01-01T00:00:00Z"},
	{Key: "vcs.modified", Value: "true"},
}

func TestVersion(t *testing.T) {
	for _, tt := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "1.0"},
		{built, "1.0+0123456789abcdef0123-modified"},
		{built[:4], "1.0+0123456789abcdef0123"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}, "1.0"},
	} {
		if got := version("1.0", tt.settings); got != tt.want {
			t.Errorf("version(%v) = %q, want %q", tt.settings, got, tt.want)
		}
	}
}

func TestRevision(t *testing.T) {
	if got := revision(built, 12); got != "0123456789ab" {
		t.Errorf("revision(12) = %q, want 0123456789ab", got)
	}
	if got := revision(built, 40); got != "" {
		t.Errorf("revision(40) of a 20-character commit = %q, want \"\"", got)
	}
	if got := revision(nil, 12); got != "" {
		t.Errorf("revision of a build without a commit = %q, want \"\"", got)
	}
}
