package souffle

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// source is a preprocessed program: its lines, each with where it comes
// from.
type source struct {
	lines []string
	where []pos
}

// preprocessor runs the preprocessor lines Soufflé programs use:
// `#include "file"` (relative to the including file), `#define NAME text`
// (a name replaced by its text), `#undef`, `#ifdef`, `#ifndef`, `#else`,
// `#endif`; other lines starting with # are ignored.
type preprocessor struct {
	out    source
	macros map[string]string
	depth  int
	// drumql are the included files of drumql's dialect (not Soufflé
	// files), read by the parser and merged with the program.
	drumql []string
}

var macroName = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func preprocess(path string, src string) (source, []string, error) {
	p := &preprocessor{macros: map[string]string{}}
	err := p.file(path, src)
	return p.out, p.drumql, err
}

func (p *preprocessor) file(path, src string) error {
	if p.depth++; p.depth > 32 {
		return &Error{At: path + ":1:1", Msg: "#include nested more than 32 deep"}
	}
	defer func() { p.depth-- }()
	var conds []bool // the #ifdef lines open, each true when its part is kept
	active := func() bool {
		for _, on := range conds {
			if !on {
				return false
			}
		}
		return true
	}
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		at := pos{path, i + 1, 1}
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "#") {
			if active() {
				p.out.lines = append(p.out.lines, p.expand(line))
				p.out.where = append(p.out.where, at)
			}
			continue
		}
		// a directive, continued by a final backslash
		for strings.HasSuffix(trimmed, `\`) && i+1 < len(lines) {
			i++
			trimmed = strings.TrimSuffix(trimmed, `\`) + " " + strings.TrimSpace(lines[i])
		}
		word, rest, _ := strings.Cut(strings.TrimSpace(trimmed[1:]), " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "ifdef", "ifndef":
			_, def := p.macros[rest]
			conds = append(conds, def == (word == "ifdef"))
		case "else":
			if len(conds) == 0 {
				return errAt(at, "#else without #ifdef")
			}
			conds[len(conds)-1] = !conds[len(conds)-1]
		case "endif":
			if len(conds) == 0 {
				return errAt(at, "#endif without #ifdef")
			}
			conds = conds[:len(conds)-1]
		case "define":
			if active() {
				name, text, _ := strings.Cut(rest, " ")
				if strings.Contains(name, "(") {
					return errAt(at, "unsupported: #define of a macro with parameters")
				}
				p.macros[name] = strings.TrimSpace(text)
			}
		case "undef":
			if active() {
				delete(p.macros, rest)
			}
		case "include":
			if !active() {
				continue
			}
			name := strings.Trim(rest, `"<>`)
			full := name
			if !filepath.IsAbs(name) {
				full = filepath.Join(filepath.Dir(path), name)
			}
			b, err := os.ReadFile(full)
			if err != nil {
				return errAt(at, "#include %q: %v", name, err)
			}
			if !IsSouffle(full, b) {
				p.drumql = append(p.drumql, full) // drumql's dialect
			} else if err := p.file(full, string(b)); err != nil {
				return err
			}
		}
		// keep the line count: an empty line in the directive's place
		p.out.lines = append(p.out.lines, "")
		p.out.where = append(p.out.where, at)
	}
	if len(conds) > 0 {
		return &Error{At: path + ":1:1", Msg: "#ifdef without #endif"}
	}
	return nil
}

// expand replaces the defined names in line, outside strings.
func (p *preprocessor) expand(line string) string {
	if len(p.macros) == 0 {
		return line
	}
	for k := 0; k < 8; k++ { // a macro's text may use another
		parts := strings.Split(line, `"`)
		for i := 0; i < len(parts); i += 2 { // outside strings
			parts[i] = macroName.ReplaceAllStringFunc(parts[i], func(w string) string {
				if t, ok := p.macros[w]; ok {
					return t
				}
				return w
			})
		}
		next := strings.Join(parts, `"`)
		if next == line {
			break
		}
		line = next
	}
	return line
}
