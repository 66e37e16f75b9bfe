package buildinfo

import "runtime/debug"

// settings returns the settings the build recorded, or none.
func settings() []debug.BuildSetting {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Settings
	}
	return nil
}

// Version is release followed by the commit the binary was built from,
// when recorded ("+" and the full revision), and "-modified" when the tree
// had changes not committed: what two binaries must share to be the same
// build. Without a recorded commit it is release.
func Version(release string) string {
	return version(release, settings())
}

// version is Version for the build settings given, in their order.
func version(release string, settings []debug.BuildSetting) string {
	v := release
	for _, s := range settings {
		switch {
		case s.Key == "vcs.revision":
			v += "+" + s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			v += "-modified"
		}
	}
	return v
}

// Revision returns the first n characters of the commit the binary was
// built from, or "" when none is recorded or it is shorter than n.
func Revision(n int) string {
	return revision(settings(), n)
}

// revision is Revision for the build settings given.
func revision(settings []debug.BuildSetting, n int) string {
	rev := ""
	for _, s := range settings {
		if s.Key == "vcs.revision" && len(s.Value) >= n {
			rev = s.Value[:n]
		}
	}
	return rev
}
