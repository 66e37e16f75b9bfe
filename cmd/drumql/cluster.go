package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/internal/buildinfo"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/mining"
	"github.com/nats-io/nats.go"
)

// clusterFlags are drumql mine's flags for mining the head groups on
// drumql workers (drumql worker) over a NATS JetStream server.
type clusterFlags struct {
	Cluster     string        `placeholder:"nats://HOST:PORT" help:"Mine the head groups on drumql workers over this NATS JetStream server (several URLs: comma-separated). This process keeps the store, ships its snapshot to the workers and writes the same files as mining here; the rules are byte-identical."`
	RunID       string        `name:"run-id" placeholder:"ID" help:"With --cluster: the run's id (default: a new random one). Started again with the id of an interrupted run, the coordinator resumes it: finished groups are not mined again."`
	Keep        bool          `help:"With --cluster: keep the run's streams and objects on the server when it ends."`
	AckWait     time.Duration `default:"30s" placeholder:"D" help:"With --cluster: a job whose worker sends no heartbeat for D goes to another worker (default ${default})."`
	MaxAttempts int           `default:"4" placeholder:"N" help:"With --cluster: the run stops when a job has failed N times (default ${default})."`
	Replicas    int           `default:"1" placeholder:"N" help:"With --cluster: servers that keep each stream of the run, at most the cluster's size (default ${default})."`
	Reconnect   time.Duration `default:"30s" placeholder:"D" help:"With --cluster: how long to try to reconnect to a lost server before stopping (the run can then be resumed; default ${default})."`
	Expire      time.Duration `default:"72h" placeholder:"D" help:"With --cluster: the run's jobs, reports and objects are removed from the server D after it starts, finished or not (default ${default}); see drumql cluster runs and cancel."`
	natsFlags
}

// natsFlags are the connection options of a real deployment, passed to the
// NATS client.
type natsFlags struct {
	Creds   string   `placeholder:"FILE" help:"NATS credentials file (user JWT and NKey seed)."`
	TLSCA   []string `name:"tls-ca" sep:"," placeholder:"FILE" help:"PEM file(s) of the certificate authorities of the server's TLS certificate."`
	TLSCert string   `name:"tls-cert" placeholder:"FILE" help:"PEM client certificate, for servers that verify clients (with --tls-key)."`
	TLSKey  string   `name:"tls-key" placeholder:"FILE" help:"PEM key of --tls-cert."`
}

// connOptions are the client options of the flags.
func (f natsFlags) connOptions(url, name string) cluster.ConnOptions {
	return cluster.ConnOptions{URL: url, Name: name, Creds: f.Creds, RootCAs: f.TLSCA, Cert: f.TLSCert, Key: f.TLSKey}
}

// connectNATS connects with opts for the command cmd: an address that is
// not a NATS one is a usage error, an unreachable server gets a hint.
func connectNATS(opts cluster.ConnOptions, cmd string) (*nats.Conn, error) {
	nc, err := cluster.Connect(opts)
	switch {
	case errors.Is(err, cluster.ErrBadURL):
		return nil, inputErr(fmt.Errorf("%s: %w", cmd, err))
	case errors.Is(err, cluster.ErrUnreachable):
		return nil, fmt.Errorf("%s: %w\nhint: is a NATS server with JetStream (nats-server -js) running at %s?", cmd, err, opts.URL)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return nc, nil
}

// clusterCmd is drumql cluster: the runs on a NATS JetStream server.
type clusterCmd struct {
	Runs   clusterRunsCmd   `cmd:"" help:"List the mining runs on the server: id, age, groups done."`
	Cancel clusterCancelCmd `cmd:"" help:"Remove a run from the server: its jobs, reports and objects."`
}

// clusterServer is the server flag of drumql cluster's commands.
type clusterServer struct {
	Cluster string `required:"" placeholder:"nats://HOST:PORT" help:"The NATS JetStream server of the runs (several URLs: comma-separated)."`
	natsFlags
}

// connect connects to the server of the flags.
func (f clusterServer) connect(cmd string) (*nats.Conn, error) {
	return connectNATS(f.connOptions(f.Cluster, "drumql "+cmd), cmd)
}

// clusterRunsCmd is drumql cluster runs.
type clusterRunsCmd struct {
	clusterServer
	Format string `enum:"table,json" default:"table" help:"Output format: table or json."`
}

func (c *clusterRunsCmd) Run(e *env) error {
	nc, err := c.connect("cluster runs")
	if err != nil {
		return err
	}
	defer nc.Close()
	runs, err := cluster.ListRuns(e.ctx, nc)
	if err != nil {
		return fmt.Errorf("cluster runs: %w", err)
	}
	rows := cluster.RunRows(runs, time.Now())
	if c.Format == "json" {
		return writeJSON(e.stdout, rows)
	}
	return cluster.WriteRunsTable(e.stdout, rows)
}

// clusterCancelCmd is drumql cluster cancel.
type clusterCancelCmd struct {
	clusterServer
	IDs []string `arg:"" name:"id" help:"Run ids (see drumql cluster runs)."`
}

func (c *clusterCancelCmd) Run(e *env) error {
	nc, err := c.connect("cluster cancel")
	if err != nil {
		return err
	}
	defer nc.Close()
	for _, id := range c.IDs {
		if _, err := cluster.NewNames(id); err != nil {
			return inputErr(fmt.Errorf("cluster cancel: %w", err))
		}
	}
	for _, id := range c.IDs {
		if err := cluster.CancelRun(e.ctx, nc, id); err != nil {
			return fmt.Errorf("cluster cancel: %w", err)
		}
		if !e.cli.Quiet {
			fmt.Fprintf(e.stderr, "cluster cancel: run %s removed\n", id)
		}
	}
	return nil
}

// buildVersion is the version a coordinator and its workers must share:
// the release, and the commit when the build recorded one.
func buildVersion() string { return buildinfo.Version(version) }

// mineCluster mines the --head-groups groups on the workers of --cluster
// (the coordinator's side), each with opt and its heads; it returns the
// result and the bytes of the group models as the workers sent them.
func (c *mineCmd) mineCluster(e *env, src miner.GraphSource, g *miner.Graph, opt miner.Options) (*miner.Result, [][]byte, error) {
	groups, err := miner.HeadGroups(src, g, c.Heads, c.HeadGroups)
	if err != nil {
		return nil, nil, err
	}
	run := c.RunID
	if run == "" {
		var err error
		if run, err = mining.NewRunID(); err != nil {
			return nil, nil, err
		}
	}
	if _, err := cluster.NewNames(run); err != nil {
		return nil, nil, inputErr(fmt.Errorf("mine: --run-id: %w", err))
	}
	data, err := mining.SnapshotData(e.ctx, src, c.Snapshot)
	if err != nil {
		return nil, nil, fmt.Errorf("mine --cluster: snapshot: %w", err)
	}
	opts := c.connOptions(c.Cluster, "drumql mine "+run)
	opts.Retry = c.Reconnect
	lost := opts.CloseSignal()
	say := func(format string, args ...any) {
		if !e.cli.Quiet {
			fmt.Fprintf(e.stderr, "mine: run %s: "+format+"\n", append([]any{run}, args...)...)
		}
	}
	opts.LogReconnects(say, true)
	nc, err := connectNATS(opts, "mine --cluster")
	if err != nil {
		return nil, nil, err
	}
	defer nc.Close()
	say("%d head groups on %s; interrupted, it resumes with --run-id %s", len(groups), nc.ConnectedUrlRedacted(), run)
	co := &cluster.Coordinator{Conn: nc, Run: run, Version: buildVersion(), Keep: c.Keep, AckWait: c.AckWait,
		MaxAttempts: c.MaxAttempts, Replicas: c.Replicas, Expire: c.Expire, Lost: lost, Logf: say,
		Progress: func(n cluster.Counts) {
			say("%d queued, %d running, %d done of %d", n.Queued, n.Running, n.Done, n.Groups)
		}}
	r, files, err := mining.MineOnCluster(e.ctx, co, data, groups, opt)
	if errors.Is(err, context.Canceled) {
		return nil, nil, fmt.Errorf("mine: interrupted; the run is kept on the server: resume it with --run-id %s: %w", run, err)
	} else if err != nil {
		return nil, nil, fmt.Errorf("mine --cluster: %w", err)
	}
	if !c.Keep {
		say("done; its streams and objects were removed")
	}
	return r, files, nil
}
