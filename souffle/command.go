package souffle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/buildinfo"
)

// Command is `drumql run`: its flags are Soufflé's (-F, -D, -j, -w,
// --version), plus --confidence. The CLI embeds it in its command table.
type Command struct {
	Program    string `arg:"" optional:"" name:"program" help:"The program (a Soufflé file, or one of drumql's dialect)."`
	FactDir    string `short:"F" name:"fact-dir" default:"." placeholder:"DIR" help:"Directory of the .input files (REL.facts)."`
	OutputDir  string `short:"D" name:"output-dir" default:"." placeholder:"DIR" help:"Directory of the .output files (REL.csv); - writes them to stdout."`
	Jobs       int    `short:"j" name:"jobs" default:"1" placeholder:"N" help:"Threads of the evaluation (the outputs are the same for every N)."`
	NoWarn     bool   `short:"w" name:"no-warn" help:"No warnings."`
	Version    bool   `name:"version" help:"Print the version and exit."`
	Confidence bool   `name:"confidence" help:"Write each tuple's confidence as an extra last column."`
}

// Run runs the command, writing the outputs and errors: an error is
// returned with its diagnostics rendered (the source line and a caret).
func (c *Command) Run(ctx context.Context, stdout, stderr io.Writer) error {
	if c.Version {
		rev := buildinfo.Revision(12)
		if rev == "" {
			rev = "unknown revision"
		}
		_, err := fmt.Fprintf(stdout, "drumql run: Soufflé programs (the language of Soufflé 2.4), %s\n", rev)
		return err
	}
	if c.Program == "" {
		return errors.New("run: expected a program: drumql run PROG.dl [-F DIR] [-D DIR|-]")
	}
	if c.OutputDir != "-" {
		// As Soufflé's compiler does: before evaluating, not after.
		if fi, err := os.Stat(c.OutputDir); err != nil || !fi.IsDir() {
			return fmt.Errorf("run: output directory %s (-D) does not exist or is not a directory", c.OutputDir)
		}
	}
	cfg := Config{Program: c.Program, FactDir: c.FactDir, OutputDir: c.OutputDir, Jobs: c.Jobs,
		NoWarn: c.NoWarn, Confidence: c.Confidence}
	if os.Getenv("GOGC") == "" {
		cfg.GCPercent = RunGCPercent
	}
	err := Run(ctx, cfg, stdout, stderr)
	var ds datalog.Diagnostics
	if errors.As(err, &ds) {
		var b strings.Builder
		_ = ds.Render(&b, func(file string) []byte {
			src, _ := os.ReadFile(file)
			return src
		})
		return errors.New(strings.TrimRight(b.String(), "\n"))
	}
	return err
}
