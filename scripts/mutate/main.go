package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := run(ctx, os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// config is the command line.
type config struct {
	list    string
	root    string
	only    *regexp.Regexp
	check   bool
	verbose bool
	timeout time.Duration
}

// parseFlags reads the command line.
func parseFlags(args []string) (config, error) {
	var c config
	var only string
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.StringVar(&c.list, "list", "scripts/mutate/mutations.json", "the list of mutations (JSON)")
	fs.StringVar(&c.root, "root", ".", "the module root")
	fs.StringVar(&only, "only", "", "test only the mutations whose name matches this regular expression")
	fs.BoolVar(&c.check, "check", false, "only check that every mutation applies (its snippet found once)")
	fs.BoolVar(&c.verbose, "v", false, "print go test's output of every survivor and broken mutation")
	fs.DurationVar(&c.timeout, "timeout", 15*time.Minute, "go test's -timeout for each mutation")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("mutate: unexpected arguments %q", fs.Args())
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return c, fmt.Errorf("mutate: -only: %w", err)
		}
		c.only = re
	}
	return c, nil
}

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, w io.Writer) (int, error) {
	c, err := parseFlags(args)
	if err != nil {
		return 2, err
	}
	ms, err := loadList(c.list)
	if err != nil {
		return 2, err
	}
	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return 2, err
	}
	defer os.RemoveAll(tmp)
	var sum summary
	for i, m := range ms {
		if c.only != nil && !c.only.MatchString(m.Name) {
			continue
		}
		prefix := fmt.Sprintf("[%2d/%d] %s%s", i+1, len(ms), m.Name, mustTag(m))
		l, err := locate(c.root, m)
		if err != nil {
			fmt.Fprintf(w, "%s: BROKEN: %v\n", prefix, err)
			sum.add(m, result{outcome: Broken})
			continue
		}
		if l.moved {
			prefix += fmt.Sprintf(" (%s is gone: found in %s)", m.File, l.file)
		}
		if c.check {
			fmt.Fprintf(w, "%s: applies to %s\n", prefix, l.file)
			continue
		}
		r, err := runMutation(ctx, c.root, tmp, m, l, c.timeout)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(w, "%s: interrupted\n", prefix)
				break
			}
			return 2, fmt.Errorf("mutate: %s: %w", m.Name, err)
		}
		fmt.Fprintf(w, "%s: %s (%.1fs)\n", prefix, describe(m, r), r.took.Seconds())
		if c.verbose && r.outcome != Caught {
			fmt.Fprintf(w, "%s\n", r.output)
		}
		sum.add(m, r)
	}
	if c.check {
		if sum.broken > 0 {
			return 1, fmt.Errorf("mutate: %d mutations do not apply", sum.broken)
		}
		return 0, nil
	}
	fmt.Fprint(w, sum.String())
	if sum.mustMissed > 0 || sum.broken > 0 {
		return 1, nil
	}
	return 0, nil
}

// mustTag marks a must mutation in the report.
func mustTag(m Mutation) string {
	if m.Must {
		return " (must)"
	}
	return ""
}

// describe says what testing a mutation gave.
func describe(m Mutation, r result) string {
	switch r.outcome {
	case Caught:
		return "caught by " + strings.Join(r.failed, ", ")
	case Broken:
		return "BROKEN: " + strings.Join(r.failed, ", ")
	}
	s := "SURVIVED (" + strings.Join(m.Pkgs, " ")
	if m.Run != "" {
		s += " -run " + m.Run
	}
	s += ")"
	if m.Note != "" {
		s += ": " + m.Note
	}
	return s
}

// summary counts the outcomes of a run.
type summary struct {
	total, caught, broken int
	mustMissed            int
	survivors             []string
}

// add counts the result of m.
func (s *summary) add(m Mutation, r result) {
	switch r.outcome {
	case Caught:
		s.total++
		s.caught++
	case Survived:
		s.total++
		s.survivors = append(s.survivors, m.Name)
		if m.Must {
			s.mustMissed++
		}
	case Broken:
		s.broken++
		if m.Must {
			s.mustMissed++
		}
	}
}

// String is the summary line of the report.
func (s *summary) String() string {
	pct := 0.0
	if s.total > 0 {
		pct = 100 * float64(s.caught) / float64(s.total)
	}
	out := fmt.Sprintf("caught %d/%d (%.1f%%)", s.caught, s.total, pct)
	if s.broken > 0 {
		out += fmt.Sprintf(", %d broken (not counted)", s.broken)
	}
	if len(s.survivors) > 0 {
		out += "; survivors: " + strings.Join(s.survivors, ", ")
	}
	if s.mustMissed > 0 {
		out += fmt.Sprintf("; %d must mutations not caught", s.mustMissed)
	}
	return out + "\n"
}
