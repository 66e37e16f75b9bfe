package wire

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// Rule is a loaded rule as GET /v1/rules lists it. Support, Body and
// Confidence are read from the comment above the rule in its file, which
// drumql mine writes ("% score=... support=N body=M conf=C").
type Rule struct {
	Rule       string   `json:"rule"`
	Head       string   `json:"head"`
	Weight     float64  `json:"weight"`
	File       string   `json:"file,omitempty"`
	Line       int      `json:"line,omitempty"`
	Support    *int     `json:"support,omitempty"`
	Body       *int     `json:"body,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
}

var (
	countRe = regexp.MustCompile(`\b(support|body)[=~](\d+)`)
	confRe  = regexp.MustCompile(`\bconf=([0-9.eE+-]+)`)
)

// NewRule describes r, reading the comment above it in lines (its file's
// lines, nil if unknown) when r carries none.
func NewRule(r datalog.Rule, lines []string) Rule {
	c := r
	c.Comment = ""
	info := Rule{Rule: c.String(), Head: r.Head.Pred, Weight: r.Weight, File: r.Pos.File, Line: r.Pos.Line}
	if info.Weight == 0 {
		info.Weight = 1
	}
	comment := r.Comment
	if comment == "" && lines != nil && r.Pos.Line > 1 {
		// the comment lines directly above the rule
		for i := r.Pos.Line - 2; i >= 0 && i < len(lines); i-- {
			l := strings.TrimSpace(lines[i])
			if !strings.HasPrefix(l, "%") {
				break
			}
			comment = l + "\n" + comment
		}
	}
	for _, m := range countRe.FindAllStringSubmatch(comment, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		if m[1] == "support" {
			info.Support = &n
		} else {
			info.Body = &n
		}
	}
	if m := confRe.FindStringSubmatch(comment); m != nil {
		if f, err := strconv.ParseFloat(m[1], 64); err == nil {
			info.Confidence = &f
		}
	}
	return info
}

// Relation is a relation of the store with its fact counts, as `drumql
// stats --format json` and GET /v1/stats list them.
type Relation struct {
	Name    string `json:"name"`
	Arity   int    `json:"arity"`
	Base    int    `json:"base"`
	Derived int    `json:"derived"`
}

// NewRelation is the relation r of a store.
func NewRelation(r store.RelationStats) Relation {
	return Relation{Name: r.Name, Arity: r.Arity, Base: r.Base, Derived: r.Derived}
}
