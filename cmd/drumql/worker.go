package main

import (
	"fmt"
	"time"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/miner"
)

// workerCmd is drumql worker.
type workerCmd struct {
	Cluster   string        `required:"" placeholder:"nats://HOST:PORT" help:"The NATS JetStream server of the runs (several URLs: comma-separated)."`
	Threads   int           `placeholder:"N" help:"Worker goroutines per job (default: all cores). The result does not depend on it."`
	Name      string        `placeholder:"NAME" help:"The worker's name in the coordinator's messages (default HOST:PID)."`
	Cache     string        `placeholder:"DIR" help:"Keep the snapshots fetched in DIR, named by their SHA-256 (default: drumql/snapshots in the user cache directory; off: in memory only)."`
	Poll      time.Duration `default:"2s" placeholder:"D" help:"How often an idle worker looks for new runs, besides the coordinators' announcements (default ${default})."`
	MaxMemory string        `placeholder:"SIZE" help:"Fail the jobs whose training and rule extraction are estimated to need more than SIZE of memory (e.g. 8G; default: no limit)."`
	natsFlags
}

// Help is shown under the command's usage.
func (workerCmd) Help() string {
	return `Takes jobs from the runs of 'drumql mine --cluster' on a NATS JetStream server:
each job is one head group, mined from the run's graph snapshot (fetched once,
then cached) exactly as 'drumql mine --head-groups' mines it in one process.
The result (the group's model and rules) is stored on the server before the
job is acknowledged; during a job the worker sends heartbeats, so a long job
is not given to another worker. A job of another drumql version is refused.
Ctrl-C gives the current job back to the queue and stops.

Examples:
  drumql worker --cluster nats://10.0.0.5:4222
  drumql worker --cluster nats://a:4222,nats://b:4222 --threads 8 --creds drumql.creds`
}

// testHookWorkerProgress, when set by a test, sees every progress report of
// the jobs of drumql worker (to stop a worker in the middle of a job).
var testHookWorkerProgress func(cluster.Job, miner.Progress)

func (c *workerCmd) Run(e *env) error {
	if err := cluster.CheckURL(c.Cluster); err != nil {
		return inputErr(fmt.Errorf("worker: --cluster: %w", err))
	}
	name := c.Name
	if name == "" {
		name = cluster.DefaultWorkerName()
	}
	cache := cluster.CacheDir(c.Cache)
	var maxMem int64
	if c.MaxMemory != "" {
		n, err := sysmem.ParseSize(c.MaxMemory)
		if err != nil {
			return inputErr(fmt.Errorf("worker: --max-memory: %w", err))
		}
		maxMem = n
	}
	logf := func(format string, args ...any) {
		if !e.cli.Quiet {
			fmt.Fprintf(e.stderr, "worker %s: "+format+"\n", append([]any{name}, args...)...)
		}
	}
	opts := c.connOptions(c.Cluster, "drumql worker "+name)
	opts.LogReconnects(logf, false)
	nc, err := connectNATS(opts, "worker")
	if err != nil {
		return err
	}
	defer nc.Close()
	logf("drumql %s, waiting for jobs on %s", buildVersion(), nc.ConnectedUrlRedacted())
	w := &cluster.Worker{Conn: nc, Name: name, Version: buildVersion(), Threads: c.Threads, CacheDir: cache, Poll: c.Poll, Logf: logf, MaxMemory: maxMem}
	if testHookWorkerProgress != nil {
		w.Progress = testHookWorkerProgress
	}
	if err := w.Run(e.ctx); err != nil {
		return err
	}
	logf("stopped")
	return nil
}
