package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/internal/jsonflags"
	"github.com/drumql/drumql/mining"
)

// mineConfigFile is mine's --config FILE: a JSON object whose keys are
// mine's flag names (as on the command line, without the dashes) and whose
// values are the flags' values. Its hook, run before kong resolves the flags
// left out of the command line, adds the file as a resolver: a flag given on
// the command line overrides the file, and a key that is not a flag of mine
// is a usage error naming the file and the key.
type mineConfigFile string

// configFlags are mine's flags that a configuration file may not set.
var configFlags = map[string]bool{"config": true, "write-config": true}

// BeforeResolve reads the file and adds its values as a resolver.
func (f mineConfigFile) BeforeResolve(ctx *kong.Context, trace *kong.Path) error {
	path := string(ctx.FlagValue(trace.Flag).(mineConfigFile))
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("mine --config: %w", err)
	}
	values, keys, err := jsonflags.Decode(data)
	if err != nil {
		return fmt.Errorf("mine --config %s: not a JSON object of flag values: %w", path, err)
	}
	flags := map[string]*kong.Flag{}
	for _, fl := range ctx.Selected().Flags {
		if !configFlags[fl.Name] {
			flags[fl.Name] = fl
		}
	}
	for _, k := range keys {
		if flags[k] == nil {
			return fmt.Errorf("mine --config %s: unknown key %q: not a flag of drumql mine (keys are flag names without the dashes, as --write-config writes them)", path, k)
		}
	}
	ctx.AddResolver(kong.ResolverFunc(func(_ *kong.Context, _ *kong.Path, fl *kong.Flag) (any, error) {
		if flags[fl.Name] != fl {
			return nil, nil // a global flag, or another command's
		}
		v, ok := values[fl.Name]
		if !ok || v == nil {
			return nil, nil // null: the flag's default
		}
		if want := jsonflags.TypeOf(fl.Target.Type()); !jsonflags.Is(v, want) {
			return nil, fmt.Errorf("mine --config %s: key %q: want %s, not %s", path, fl.Name, want, jsonflags.TypeName(v))
		}
		return jsonflags.Text(v), nil
	}))
	return nil
}

// AfterApply keeps mine's flags, for --write-config.
func (c *mineCmd) AfterApply(ctx *kong.Context) error {
	c.flags = ctx.Selected().Flags
	return nil
}

// writeConfig writes the run's configuration to --write-config: every flag
// of mine (but --config and --write-config) with its value, keys sorted. A
// flag left out that takes the miner's default is written with that default
// (mining.DefaultOf, as the help shows it); --min-score and --min-support,
// whose default is not one value, are written as null (the miner's
// defaults) when left out. Read back with --config, the file runs the same
// mining.
func (c *mineCmd) writeConfig() error {
	if c.WriteConfig == "" {
		return nil
	}
	values := map[string]any{}
	for _, fl := range c.flags {
		if configFlags[fl.Name] {
			continue
		}
		values[fl.Name] = flagConfigValue(fl)
	}
	data, err := json.MarshalIndent(values, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(c.WriteConfig, append(data, '\n')); err != nil {
		return fmt.Errorf("mine --write-config: %w", err)
	}
	return nil
}

// flagConfigValue is fl's value as --write-config writes it; a flag left
// out is written with the miner's default (mining.DefaultOf), or as null
// without one.
func flagConfigValue(fl *kong.Flag) any {
	var def any
	if d, ok := mining.DefaultOf(fl.Name); ok {
		def = json.Number(d)
	}
	return jsonflags.Encode(fl.Target, def)
}
