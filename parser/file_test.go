package parser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFile writes text to name in dir, creating the directories of name,
// and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestParseFileImportRules: imports read regular files only, up to the size
// limit, from the directory of the file given and below it (after ".." and
// symbolic links), unless AllowOutside; a refused file is not read, and
// every refusal is an error at the import.
func TestParseFileImportRules(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "rules")
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	outside := filepath.Join(tmp, "outside.tsv")
	if err := os.WriteFile(outside, []byte("secret\tr\tline\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("kg/in.tsv", "a\tr\tb\n")
	write("kg/nested.dl", "@import \"in.tsv\".\n@import \"../top.tsv\".\n@import \"../../outside.tsv\".\n")
	write("top.tsv", "c\tr\td\n")
	write("big.tsv", strings.Repeat("x", 400)+"\tr\ty\n")
	if err := os.Symlink(outside, filepath.Join(dir, "link.tsv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "top.tsv"), filepath.Join(dir, "kg", "inlink.tsv")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.tsv"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	main := write("main.dl", `@import "kg/nested.dl".
@import "kg/../kg/inlink.tsv".
@import "../outside.tsv".
@import "`+outside+`".
@import "link.tsv".
@import "fifo.tsv".
@import "kg".
@import "/dev/null".
@import "big.tsv".
p(a).
`)
	type result struct {
		facts []string
		err   error
	}
	parse := func(opts FileOptions) result {
		t.Helper()
		done := make(chan result, 1)
		go func() {
			p, err := ParseFileContext(context.Background(), main, opts)
			var r result
			if p != nil {
				for _, f := range p.Facts {
					r.facts = append(r.facts, f.String())
				}
			}
			r.err = err
			done <- r
		}()
		select {
		case r := <-done:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("ParseFileContext did not return in 10 s (a named pipe without writer?)")
			return result{}
		}
	}
	nested := filepath.Join(dir, "kg", "nested.dl")
	out := func(file, path string) string {
		return file + `: error: cannot import "` + path + `": it is outside ` + realPath(dir) + ": imports are read only from the directory of main.dl and below it (hint)"
	}
	r := parse(FileOptions{MaxFileSize: 300, OutsideHint: "hint", TooLargeHint: "raise it"})
	want := []string{ // files in the order read, then lines
		out(main+":3:1", "../outside.tsv"),
		out(main+":4:1", outside),
		out(main+":5:1", "link.tsv"),
		main + `:6:1: error: cannot import "fifo.tsv": not a regular file (a named pipe)`,
		main + `:7:1: error: cannot import "kg": not a regular file (a directory)`,
		out(main+":8:1", "/dev/null"),
		main + `:9:1: error: cannot import "big.tsv": the file has 405 bytes, more than the limit of 300 bytes (raise it)`,
		out(nested+":3:1", "../../outside.tsv"),
	}
	if r.err == nil || r.err.Error() != strings.Join(want, "\n") {
		t.Errorf("error:\n%v\nwant\n%s", r.err, strings.Join(want, "\n"))
	}
	if got := strings.Join(r.facts, " "); got != "p(a). r(a, b). r(c, d)." {
		t.Errorf("facts %s", got)
	}

	// Allowed outside: the file outside is read (once); the rest as before.
	r = parse(FileOptions{AllowOutside: true})
	if got := strings.Join(r.facts, " "); got != "p(a). r(a, b). r(c, d). r(secret, line). r("+strings.Repeat("x", 400)+", y)." {
		t.Errorf("with AllowOutside: facts %s", got)
	}
	if r.err == nil || strings.Contains(r.err.Error(), "outside") || !strings.Contains(r.err.Error(), "named pipe") ||
		!strings.Contains(r.err.Error(), `cannot import "/dev/null": not a regular file (a device)`) {
		t.Errorf("with AllowOutside: error %v", r.err)
	}

	// The file given is bounded the same way.
	for _, bad := range []string{filepath.Join(dir, "fifo.tsv"), "/dev/zero", dir} {
		_, err := ParseFileContext(context.Background(), bad, FileOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), bad+": error: not a regular file (") {
			t.Errorf("ParseFileContext(%s): %v", bad, err)
		}
	}
}

// TestReadSourceCanceled: reading and parsing stop with the context's
// error after a chunk (of 1 MiB, or ctxEvery tokens); a short file is read
// whole.
func TestReadSourceCanceled(t *testing.T) {
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short.dl"), filepath.Join(dir, "long.dl")
	if err := os.WriteFile(short, []byte("p(a).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, []byte(strings.Repeat("p(a).\n", readChunk/3)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadSource(ctx, long, DefaultMaxFileSize); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadSource: %v, want context.Canceled", err)
	}
	if _, err := ParseFileContext(ctx, long, FileOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("ParseFileContext: %v, want context.Canceled", err)
	}
	if p, err := ParseFileContext(ctx, short, FileOptions{}); err != nil || len(p.Facts) != 1 {
		t.Errorf("ParseFileContext of a short file: %v, %v", p, err)
	}
	// A statement stream stops at the next look at the context.
	src := strings.Repeat("p(a). ", 3*ctxEvery)
	p, _ := ParseString("ok.dl", src)
	if len(p.Facts) != 3*ctxEvery {
		t.Fatalf("%d facts", len(p.Facts))
	}
	p.Facts = nil
	if _, err := parseSource(ctx, p, "stopped.dl", src, false); !errors.Is(err, context.Canceled) || len(p.Facts) >= ctxEvery {
		t.Errorf("a canceled parse read %d facts, error %v", len(p.Facts), err)
	}
}

// TestExcerpt: messages quote at most 40 characters of a token or path.
func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 41)
	for in, want := range map[string]string{"ab": `"ab"`, long[:80]: `"` + long[:80] + `"`, long: `"` + long[:80] + `"…`} {
		if got := excerpt(in, 40); got != want {
			t.Errorf("excerpt(%q) = %s, want %s", in, got, want)
		}
	}
	_, err := ParseString("f.dl", "p(a) "+strings.Repeat("x", 10000)+".")
	if err == nil || len(err.Error()) > 120 {
		t.Errorf("error of %d bytes: %.200s", len(err.Error()), err)
	}
}
