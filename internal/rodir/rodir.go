// Package rodir makes a directory read-only for the length of a test, as a
// read-only mount or a directory without write permission does, so that
// tests can check what a program says about it.
package rodir

import (
	"os"
	"os/exec"
	"testing"
)

// Make makes dir read-only until the test ends. As root (whom permissions
// do not stop) it bind-mounts dir on itself read-only, so writes fail with
// EROFS; otherwise it removes the write permission (EACCES). It skips the
// test when it cannot do either.
func Make(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Skipf("rodir: chmod %s: %v", dir, err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("rodir: cannot bind-mount %s as root: %v: %s", dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("rodir: umount %s: %v: %s", dir, err, out)
		}
	})
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("rodir: cannot remount %s read-only: %v: %s", dir, err, out)
	}
}
