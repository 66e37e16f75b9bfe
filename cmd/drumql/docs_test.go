package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documents whose examples TestDocExamples runs and whose flag lists
// TestCLIFlagsDocumented checks follow these conventions (docs/CLI.md,
// "Examples and flags in this file", says the same for readers):
//
//   - An example is a line of a code block (indented by four spaces, or
//     inside a ``` fence) that starts with "$ drumql ". The lines after it in
//     the same block, up to the next line that starts with "$ " or "drumql ",
//     are what it prints: standard output, then standard error. A line "..."
//     (indented or not) stands for any number of lines. The time an update
//     took and the size on disk are not compared.
//   - A code line that starts with "drumql " (no "$ ") is a synopsis: not
//     run. Examples that need other data, a server or a cluster, or that
//     print how long they took, are written so.
//   - A document's examples run in order, in a directory of their own that
//     holds the walkthrough's state: examples/ (the repository's), the store
//     ./drumql.db with examples/families loaded, families.dl as drumql mine
//     writes it, and the derived facts of drumql infer families.dl
//     examples/families/expert.dl. Examples that change the state change it
//     for the examples after them.
//   - A comment line "<!-- example: edit FILE "TEXT" "NEW" -->" replaces the
//     one line of FILE that contains TEXT by NEW, as a reader editing the
//     file would; "<!-- example: drumql ARGS -->" runs a command whose output
//     is not shown. Both are invisible on the rendered page.
//   - In docs/CLI.md, each command's section (a heading naming `drumql CMD`)
//     has one paragraph starting "Flags:" that lists every flag of the
//     command (`--name ARG`); the global flags are listed once, in the
//     section "Global flags".

// docExample is one "$ drumql ..." line of a document with the output the
// document shows for it, or a directive (edit, or a command run silently).
type docExample struct {
	line    int      // 1-based line of the document
	command string   // the command line after "$ ", or the directive
	want    []string // the lines shown after it (nil for a directive)
	hidden  bool     // a directive from an HTML comment
}

// directive matches the hidden example lines of a document.
var directive = regexp.MustCompile(`^<!-- example: (.*) -->$`)

// parseExamples returns the examples and directives of a Markdown document,
// in order, and the lines (1-based) of the code lines starting "drumql "
// that are not run.
func parseExamples(doc string) ([]docExample, []int) {
	var out []docExample
	var synopses []int
	lines := strings.Split(doc, "\n")
	fenced := false
	var cur *docExample
	indent := ""
	flush := func() {
		if cur == nil {
			return
		}
		for len(cur.want) > 0 && strings.TrimSpace(cur.want[len(cur.want)-1]) == "" {
			cur.want = cur.want[:len(cur.want)-1]
		}
		out = append(out, *cur)
		cur = nil
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			flush()
			fenced = !fenced
			continue
		}
		code := fenced || strings.HasPrefix(l, "    ")
		if !code && trimmed != "" {
			flush()
			if m := directive.FindStringSubmatch(trimmed); m != nil {
				out = append(out, docExample{line: i + 1, command: m[1], hidden: true})
			}
			continue
		}
		switch {
		case code && strings.HasPrefix(trimmed, "$ "):
			flush()
			cur = &docExample{line: i + 1, command: strings.TrimPrefix(trimmed, "$ "), want: []string{}}
			indent = l[:len(l)-len(strings.TrimLeft(l, " "))]
		case code && strings.HasPrefix(trimmed, "drumql "):
			flush()
			synopses = append(synopses, i+1)
		case cur != nil:
			cur.want = append(cur.want, strings.TrimRight(strings.TrimPrefix(l, indent), " "))
		}
	}
	flush()
	return out, synopses
}

// exampleDocs are the documents whose examples are run: README.md and
// docs/*.md, relative to the repository root.
func exampleDocs(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

// TestDocExamples runs every "$ drumql ..." example of README.md and
// docs/*.md and compares what it prints with the lines the document shows
// after it (the conventions are above).
func TestDocExamples(t *testing.T) {
	root := repoRoot(t)
	ran := 0
	for _, path := range exampleDocs(t, root) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		examples, synopses := parseExamples(string(src))
		name, _ := filepath.Rel(root, path)
		if len(synopses) > 0 {
			t.Logf("%s: not run, synopses (drumql without $) at lines %v", name, synopses)
		}
		if len(examples) == 0 {
			continue
		}
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			walkthroughState(t, root)
			for _, ex := range examples {
				ran += runDocExample(t, name, ex)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no $ drumql example found in README.md or docs/*.md")
	}
}

// walkthroughState makes a scratch directory the working directory and
// builds in it the state the documents' examples run against: the store
// ./drumql.db with examples/families loaded, families.dl mined from it, and
// the facts inferred from families.dl and examples/families/expert.dl.
func walkthroughState(t *testing.T, root string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, args := range [][]string{
		{"load", "examples/families"},
		{"-q", "mine", "--out", "families.dl"},
		{"-q", "infer", "families.dl", "examples/families/expert.dl"},
	} {
		if _, stderr, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("setting up the walkthrough's state: drumql %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
}

// runDocExample runs one example or directive of the document name and
// reports a difference; it returns 1 for an example whose output was
// compared, else 0.
func runDocExample(t *testing.T, name string, ex docExample) int {
	t.Helper()
	words := splitWords(ex.command)
	if ex.hidden && len(words) == 4 && words[0] == "edit" {
		editLine(t, words[1], words[2], words[3])
		return 0
	}
	if len(words) == 0 || words[0] != "drumql" {
		t.Errorf("%s:%d: an example must be a drumql command (or a hidden edit): %q", name, ex.line, ex.command)
		return 0
	}
	stdout, stderr, code := runCLI(t, "", words[1:]...)
	if ex.hidden {
		if code != 0 {
			t.Errorf("%s:%d: %s: exit %d\n%s", name, ex.line, ex.command, code, stderr)
		}
		return 0
	}
	got := strings.Split(normaliseOutput(stdout+stderr), "\n")
	for len(got) > 0 && got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}
	want := strings.Split(normaliseOutput(strings.Join(ex.want, "\n")), "\n")
	if len(ex.want) == 0 {
		want = nil
	}
	if !matchLines(got, want) {
		t.Errorf("%s:%d: $ %s (exit %d) prints\n%s\n--- the document shows\n%s",
			name, ex.line, ex.command, code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return 1
}

// normaliseOutput removes what an example's output may not pin: trailing
// spaces, the time an update took and the size of the store on disk.
func normaliseOutput(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	s = strings.Join(lines, "\n")
	s = diskLine.ReplaceAllString(s, "${1}SIZE")
	return updateTime.ReplaceAllString(s, "${1}T (")
}

// matchLines reports whether got equals want, where a line "..." of want
// (indented or not) stands for any number of lines of got.
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(got[i:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchLines(got[1:], want[1:])
}

// TestMatchLines checks the elision of the examples' expected output.
func TestMatchLines(t *testing.T) {
	for _, c := range []struct {
		got, want string
		ok        bool
	}{
		{"a\nb\nc", "a\nb\nc", true},
		{"a\nb\nc", "a\n...\nc", true},
		{"a\nc", "a\n...\nc", true},
		{"a\nb\nc", "a\n...", true},
		{"a\n  b\nc", "a\n  ...\nc", true},
		{"a\nb\nc", "a\nb", false},
		{"a\nb", "a\nb\nc", false},
		{"a\nb\nc", "a\n...\nd", false},
		{"a\nx\nc", "a\nb\nc", false},
	} {
		if ok := matchLines(strings.Split(c.got, "\n"), strings.Split(c.want, "\n")); ok != c.ok {
			t.Errorf("matchLines(%q, %q) = %v, want %v", c.got, c.want, ok, c.ok)
		}
	}
}

// TestParseExamples checks what the conventions above take as an example,
// its output, a directive and a synopsis.
func TestParseExamples(t *testing.T) {
	doc := strings.Join([]string{
		"Text `$ drumql not code`.",
		"",
		"    drumql load x",
		"    $ drumql stats",
		"    entities: 1",
		"",
		"    after a blank line",
		"",
		"<!-- example: edit f.dl \"a\" \"b\" -->",
		"```sh",
		"$ drumql version",
		"version 1",
		"```",
		"Prose.",
		"    $ drumql check f.dl",
		"Prose again.",
	}, "\n")
	got, synopses := parseExamples(doc)
	want := []docExample{
		{line: 4, command: "drumql stats", want: []string{"entities: 1", "", "after a blank line"}},
		{line: 9, command: `edit f.dl "a" "b"`, hidden: true},
		{line: 11, command: "drumql version", want: []string{"version 1"}},
		{line: 15, command: "drumql check f.dl", want: []string{}},
	}
	if !slices.Equal(synopses, []int{3}) {
		t.Errorf("synopses at lines %v, want [3]", synopses)
	}
	if len(got) != len(want) {
		t.Fatalf("parseExamples = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].line != want[i].line || got[i].command != want[i].command || got[i].hidden != want[i].hidden || !slices.Equal(got[i].want, want[i].want) {
			t.Errorf("example %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// helpFlag matches a flag's line in kong's --help output (a line whose
// flag starts at most six columns in; the lines of a flag's description are
// indented further).
var helpFlag = regexp.MustCompile(`^(?: {2}-\w, | {2,6})--(\[no-\])?([a-z0-9][a-z0-9-]*)`)

// helpFlags returns the long flags that help lists; a negatable flag gives
// both names.
func helpFlags(help string) map[string]bool {
	flags := map[string]bool{}
	for _, l := range strings.Split(help, "\n") {
		m := helpFlag.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		flags[m[2]] = true
		if m[1] != "" {
			flags["no-"+m[2]] = true
		}
	}
	return flags
}

// helpCommands returns the commands that drumql --help lists ("cluster
// runs" is one).
func helpCommands(help string) []string {
	var cmds []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case l == "Commands:":
			in = true
		case in && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "):
			name, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
			cmds = append(cmds, name)
		case in && l == "":
			in = false
		}
	}
	return cmds
}

// docFlag matches a flag in a document's text.
var docFlag = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// docHeading matches a heading of docs/CLI.md that names a command.
var docHeading = regexp.MustCompile("^#+ `drumql ([a-z]+(?: [a-z]+)?)")

// cliFlagLists returns the flags of each "Flags:" paragraph of docs/CLI.md
// by the command whose section holds it ("" for the global flags, listed
// under a heading "Global flags"), and an error line for a command with two.
func cliFlagLists(doc string, commands []string) (map[string]map[string]bool, []string) {
	lists := map[string]map[string]bool{}
	var problems []string
	section, inList := "?", false
	for i, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "#") {
			inList = false
			section = "?"
			if strings.Contains(l, "Global flags") {
				section = ""
			} else if m := docHeading.FindStringSubmatch(l); m != nil {
				section = m[1]
				if !slices.Contains(commands, section) {
					section, _, _ = strings.Cut(section, " ")
				}
			}
			continue
		}
		if strings.HasPrefix(l, "Flags:") {
			if _, dup := lists[section]; dup || section == "?" {
				problems = append(problems, fmt.Sprintf("docs/CLI.md:%d: a Flags: list outside a command's section, or its second", i+1))
			}
			lists[section] = map[string]bool{}
			inList = true
		}
		if strings.TrimSpace(l) == "" {
			inList = false
		}
		if inList {
			for _, m := range docFlag.FindAllStringSubmatch(l, -1) {
				lists[section][m[1]] = true
			}
		}
	}
	return lists, problems
}

// TestCLIFlagsDocumented checks docs/CLI.md against drumql --help: every
// command has a section with a Flags: list, every flag listed exists in
// drumql CMD --help, and every flag of a command's help is listed; every
// --flag that the file mentions anywhere is a flag of some command.
func TestCLIFlagsDocumented(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "docs", "CLI.md"))
	if err != nil {
		t.Fatal(err)
	}
	rootHelp, _, code := runCLI(t, "", "--help")
	if code != 0 {
		t.Fatalf("drumql --help: exit %d", code)
	}
	commands := helpCommands(rootHelp)
	if len(commands) < 10 {
		t.Fatalf("drumql --help lists %d commands: %q", len(commands), commands)
	}
	global := helpFlags(rootHelp)
	lists, problems := cliFlagLists(string(src), commands)
	for _, p := range problems {
		t.Error(p)
	}
	known := map[string]bool{}
	check := func(name string, help map[string]bool) {
		doc, ok := lists[name]
		if !ok {
			t.Errorf("docs/CLI.md: no Flags: list for %q", name)
			return
		}
		for f := range help {
			known[f] = true
			if !doc[f] {
				t.Errorf("docs/CLI.md: the Flags: list of %q lacks --%s, which its --help lists", name, f)
			}
		}
		for f := range doc {
			if !help[f] {
				t.Errorf("docs/CLI.md: the Flags: list of %q has --%s, which its --help does not list", name, f)
			}
		}
	}
	check("", global)
	cmdFlags := map[string]map[string]bool{}
	for _, c := range commands {
		help, _, code := runCLI(t, "", append(strings.Fields(c), "--help")...)
		if code != 0 {
			t.Fatalf("drumql %s --help: exit %d", c, code)
		}
		own := helpFlags(help)
		for f := range global {
			delete(own, f)
		}
		check(c, own)
		cmdFlags[c] = own
	}
	for i, l := range strings.Split(string(src), "\n") {
		for _, m := range docFlag.FindAllStringSubmatch(l, -1) {
			if !known[m[1]] {
				t.Errorf("docs/CLI.md:%d: --%s is no flag of any command", i+1, m[1])
			}
		}
	}
	for _, p := range misattributed(string(src), commands, cmdFlags, global) {
		t.Error(p)
	}
}

// misattributed returns a line for each flag that a command's section of
// docs/CLI.md mentions, in backquotes or a code line, that is neither a
// global flag nor one of the command's, unless a command's name comes before
// it in the same backquoted text or code line (`eval --model`, "drumql
// mine ..."). Sections that name no one command are not checked.
func misattributed(doc string, commands []string, cmdFlags map[string]map[string]bool, global map[string]bool) []string {
	var problems []string
	check := func(section, text string) {
		words := strings.Fields(text)
		owner := section
		for i, w := range words {
			if slices.Contains(commands, w) {
				owner = w
			} else if i+1 < len(words) && slices.Contains(commands, w+" "+words[i+1]) {
				owner = w + " " + words[i+1]
			}
			m := docFlag.FindStringSubmatch(w)
			if m == nil || !strings.HasPrefix(w, "--") || global[m[1]] || cmdFlags[owner][m[1]] {
				continue
			}
			problems = append(problems, fmt.Sprintf("docs/CLI.md, section %q: --%s in %q is no flag of %s", section, m[1], text, owner))
		}
	}
	for _, part := range strings.Split("\n"+doc, "\n#")[1:] {
		heading, body, _ := strings.Cut(part, "\n")
		m := docHeading.FindStringSubmatch("#" + heading)
		if m == nil {
			continue
		}
		section := m[1]
		if !slices.Contains(commands, section) {
			section, _, _ = strings.Cut(section, " ")
		}
		var prose strings.Builder
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "    ") {
				check(section, strings.TrimSpace(l))
			} else {
				prose.WriteString(l + " ")
			}
		}
		spans := strings.Split(prose.String(), "`")
		for i := 1; i < len(spans); i += 2 {
			check(section, spans[i])
		}
	}
	return problems
}
