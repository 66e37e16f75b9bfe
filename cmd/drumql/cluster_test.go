package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/miner"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Environment of the re-executed test binary (a drumql worker).
const (
	workerArgsEnv = "DRUMQL_TEST_WORKER_ARGS"    // the command line, \x1f-separated
	workerSlowEnv = "DRUMQL_TEST_WORKER_SLOW"    // pause this long at the first batch of every job
	workerVerEnv  = "DRUMQL_TEST_WORKER_VERSION" // run as another drumql version
)

// TestWorkerProcess is not a test: it is a drumql process started by the
// cluster tests by re-executing the test binary.
func TestWorkerProcess(t *testing.T) {
	args := os.Getenv(workerArgsEnv)
	if args == "" {
		t.Skip("helper process for the cluster tests")
	}
	if v := os.Getenv(workerVerEnv); v != "" {
		version = v
	}
	if d, err := time.ParseDuration(os.Getenv(workerSlowEnv)); err == nil {
		testHookWorkerProgress = func(_ cluster.Job, p miner.Progress) {
			if p.Epoch == 1 && p.Batch == 1 && !p.EpochDone {
				time.Sleep(d)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// natsCluster starts n JetStream servers on loopback (random ports) joined
// in one cluster, and returns their client URLs; the test shuts them down.
func natsCluster(t *testing.T, n int) ([]string, []*server.Server) {
	t.Helper()
	// The route ports are taken now (then freed), so that every server can
	// name all the others.
	ports := make([]int, n)
	var routes []string
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	var servers []*server.Server
	for i := range n {
		opts := &server.Options{ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1, JetStream: true,
			StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
		if n > 1 {
			opts.Cluster = server.ClusterOpts{Name: "drumql-test", Host: "127.0.0.1", Port: ports[i]}
			opts.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() {
			s.Shutdown()
			s.WaitForShutdown()
		})
		servers = append(servers, s)
	}
	var urls []string
	for i, s := range servers {
		if !s.ReadyForConnections(20 * time.Second) {
			t.Fatalf("server %d is not ready", i+1)
		}
		urls = append(urls, s.ClientURL())
	}
	// Wait for JetStream (in a cluster: its meta leader).
	nc, js := natsClient(t, urls[0])
	defer nc.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("JetStream is not ready: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return urls, servers
}

func natsClient(t *testing.T, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// worker is a drumql worker process.
type worker struct {
	name   string
	cmd    *exec.Cmd
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWorker starts `drumql worker` as a separate process; env adds to its
// environment. The test kills it at the end.
func startWorker(t *testing.T, name, url, cache string, extra []string, env ...string) *worker {
	t.Helper()
	args := append([]string{"worker", "--cluster", url, "--name", name, "--threads", "1", "--poll", "200ms", "--cache", cache}, extra...)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), workerArgsEnv+"="+strings.Join(args, "\x1f")), env...)
	w := &worker{name: name, cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("worker %s:\n%s", name, w.stderr.String())
		}
	})
	return w
}

// watchStatus records the status messages of run as they are published.
type statusLog struct {
	mu   sync.Mutex
	all  []cluster.Status
	seen chan cluster.Status
}

func watchStatus(t *testing.T, nc *nats.Conn, run string) *statusLog {
	t.Helper()
	l := &statusLog{seen: make(chan cluster.Status, 256)}
	names, err := cluster.NewNames(run)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := nc.Subscribe(names.StatusSubject(), func(m *nats.Msg) {
		var s cluster.Status
		if json.Unmarshal(m.Data, &s) != nil {
			return
		}
		l.mu.Lock()
		l.all = append(l.all, s)
		l.mu.Unlock()
		select {
		case l.seen <- s:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *statusLog) list() []cluster.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]cluster.Status(nil), l.all...)
}

// referenceRun mines db in this process with the cluster tests' settings.
func referenceRun(t *testing.T, db, model string, extra ...string) string {
	t.Helper()
	args := append([]string{"--db", db, "-q", "mine", "--epochs", "2", "--head-groups", "3", "--save-model", model}, extra...)
	out, stderr, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("mine --head-groups 3: exit %d: %s", code, stderr)
	}
	return out
}

// TestClusterMine: on a 3-node JetStream cluster, three worker processes
// mine the head groups; the one that starts a job first is killed with
// SIGKILL in the middle of it, its job is delivered again after the ack
// wait, and the rules and the group models are byte-identical to the
// in-process run. The run's streams and bucket are gone at the end.
func TestClusterMine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster and worker processes")
	}
	db := loadFamilies(t)
	tmp := t.TempDir()
	want := referenceRun(t, db, filepath.Join(tmp, "ref.model"))
	urls, _ := natsCluster(t, 3)
	nc, js := natsClient(t, urls[1])
	defer nc.Close()
	run := "kill-test"
	status := watchStatus(t, nc, run)
	var workers []*worker
	for i := range 3 {
		// Every job pauses at its first batch: the kill lands mid-job.
		workers = append(workers, startWorker(t, fmt.Sprintf("w%d", i+1), urls[i], filepath.Join(tmp, fmt.Sprintf("cache%d", i+1)), nil, workerSlowEnv+"=1s"))
	}
	killed := make(chan cluster.Status, 1)
	go func() {
		for s := range status.seen {
			if s.State != cluster.StateRunning {
				continue
			}
			for _, w := range workers {
				if w.name == s.Worker {
					w.cmd.Process.Signal(syscall.SIGKILL)
				}
			}
			killed <- s
			return
		}
	}()
	model := filepath.Join(tmp, "c.model")
	got, stderr, code := runCLI(t, "", "--db", db, "mine", "--epochs", "2", "--head-groups", "3", "--save-model", model,
		"--cluster", strings.Join(urls, ","), "--run-id", run, "--ack-wait", "2s", "--replicas", "3")
	if code != 0 {
		t.Fatalf("mine --cluster: exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("the clustered rules differ from the in-process ones:\n%s\nwant\n%s", got, want)
	}
	for k := 1; k <= 3; k++ {
		a, _ := os.ReadFile(fmt.Sprintf("%s.g%d", model, k))
		b, _ := os.ReadFile(fmt.Sprintf("%s.g%d", filepath.Join(tmp, "ref.model"), k))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("group model %d differs from the in-process one (%d and %d bytes)", k, len(a), len(b))
		}
	}
	var k cluster.Status
	select {
	case k = <-killed:
	default:
		t.Fatal("no worker was killed")
	}
	redone := false
	for _, s := range status.list() {
		if s.Group == k.Group && s.State == cluster.StateDone && s.Worker != k.Worker && s.Attempt >= 2 {
			redone = true
		}
		if s.Worker == k.Worker && s.State == cluster.StateDone {
			t.Errorf("the killed worker %s finished group %d", k.Worker, s.Group)
		}
	}
	if !redone {
		t.Errorf("group %d (killed on %s) was not redone on a second attempt: %+v", k.Group, k.Worker, status.list())
	}
	for _, want := range []string{"3 queued, 0 running, 0 done of 3", "done of 3", "0 queued, 0 running, 3 done of 3", "removed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	ctx := context.Background()
	for name := range js.StreamNames(ctx).Name() {
		t.Errorf("stream %s left on the server", name)
	}
}

// TestClusterResume: a coordinator interrupted when the first group is done
// and started again with the same run id finishes the run without mining any
// group twice, and writes the in-process rules. The worker fetched the
// snapshot once; a second worker with that snapshot in its cache does not
// fetch it.
func TestClusterResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and worker processes")
	}
	db := loadFamilies(t)
	tmp := t.TempDir()
	want := referenceRun(t, db, filepath.Join(tmp, "ref.model"))
	urls, _ := natsCluster(t, 1)
	nc, js := natsClient(t, urls[0])
	defer nc.Close()
	runID := "resume-test"
	status := watchStatus(t, nc, runID)
	cache := filepath.Join(tmp, "cache")
	w1 := startWorker(t, "w1", urls[0], cache, nil, workerSlowEnv+"=300ms")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for s := range status.seen {
			if s.State == cluster.StateDone {
				cancel()
				return
			}
		}
	}()
	args := []string{"--db", db, "mine", "--epochs", "2", "--head-groups", "3", "--cluster", urls[0], "--run-id", runID}
	var errb bytes.Buffer
	if code := run(ctx, args, strings.NewReader(""), &bytes.Buffer{}, &errb); code == 0 || !strings.Contains(errb.String(), "resume it with --run-id "+runID) {
		t.Fatalf("interrupted coordinator: exit %d: %s", code, errb.String())
	}
	cancel()
	if _, err := js.Stream(context.Background(), "DRUMQL_"+runID+"_JOBS"); err != nil {
		t.Fatalf("the interrupted run's job stream is gone: %v", err)
	}
	// The run's objects are read through the stream's leader: a direct get
	// may be answered by a replica that lacks a result just put.
	if st, err := js.Stream(context.Background(), "OBJ_DRUMQL_"+runID); err != nil || st.CachedInfo().Config.AllowDirect {
		t.Errorf("the run's object store allows direct gets (err %v)", err)
	}
	// A second worker whose cache already holds the snapshot.
	w2 := startWorker(t, "w2", urls[0], cache, nil)
	got, stderr, code := runCLI(t, "", append(args, "--save-model", filepath.Join(tmp, "c.model"))...)
	if code != 0 {
		t.Fatalf("resumed coordinator: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "resuming it") {
		t.Errorf("the coordinator did not say it resumed:\n%s", stderr)
	}
	if got != want {
		t.Errorf("the resumed run's rules differ from the in-process ones:\n%s\nwant\n%s", got, want)
	}
	started := map[int]int{}
	for _, s := range status.list() {
		if s.State == cluster.StateRunning {
			started[s.Group]++
		}
	}
	for g := 1; g <= 3; g++ {
		if started[g] != 1 {
			t.Errorf("group %d was started %d times, want once: %+v", g, started[g], status.list())
		}
	}
	if n := strings.Count(w1.stderr.String(), "fetched"); n != 1 {
		t.Errorf("worker 1 fetched the snapshot %d times, want once:\n%s", n, w1.stderr.String())
	}
	if out := w2.stderr.String(); strings.Contains(out, "done in") && (strings.Contains(out, "fetched") || !strings.Contains(out, "from the cache")) {
		t.Errorf("worker 2 fetched a snapshot it had in its cache:\n%s", out)
	}
}

// TestClusterFailures: a job that fails on every worker stops the run with
// the worker's error (and removes the run), a worker of another version
// refuses the jobs, an unreachable server and a server lost mid-run are
// clear errors.
func TestClusterFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and worker processes")
	}
	db := loadFamilies(t)
	tmp := t.TempDir()
	urls, servers := natsCluster(t, 1)
	nc, js := natsClient(t, urls[0])
	defer nc.Close()
	mine := func(run string, extra ...string) (string, int) {
		args := append([]string{"--db", db, "mine", "--epochs", "1", "--head-groups", "2", "--cluster", urls[0], "--run-id", run, "--max-attempts", "2"}, extra...)
		_, stderr, code := runCLI(t, "", args...)
		return stderr, code
	}

	t.Run("fails everywhere", func(t *testing.T) {
		for i := range 2 {
			w := startWorker(t, fmt.Sprintf("small%d", i+1), urls[0], filepath.Join(tmp, "c"), []string{"--max-memory", "1K"})
			defer w.cmd.Process.Kill()
		}
		stderr, code := mine("fail-test")
		if code != 1 || !strings.Contains(stderr, "failed on attempt 2 of 2") || !strings.Contains(stderr, "more than this worker's limit") {
			t.Errorf("exit %d: %s", code, stderr)
		}
		for name := range js.StreamNames(context.Background()).Name() {
			t.Errorf("stream %s left after the failed run", name)
		}
	})
	t.Run("other version", func(t *testing.T) {
		w := startWorker(t, "old", urls[0], filepath.Join(tmp, "c"), nil, workerVerEnv+"=0.0.1-old")
		defer w.cmd.Process.Kill()
		stderr, code := mine("version-test")
		if code != 1 || !strings.Contains(stderr, "refused") || !strings.Contains(stderr, "this worker runs drumql 0.0.1-old") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "nats://" + l.Addr().String()
		l.Close()
		_, stderr, code := runCLI(t, "", "--db", db, "mine", "--head-groups", "2", "--cluster", url)
		if code != 1 || !strings.Contains(stderr, "cannot be reached") || !strings.Contains(stderr, "hint: is a NATS server") {
			t.Errorf("exit %d: %s", code, stderr)
		}
		_, stderr, code = runCLI(t, "", "worker", "--cluster", url)
		if code != 1 || !strings.Contains(stderr, "cannot be reached") {
			t.Errorf("worker: exit %d: %s", code, stderr)
		}
	})
	t.Run("lost mid-run", func(t *testing.T) {
		// No worker: the run waits until the server goes away.
		go func() {
			for {
				if _, err := js.Stream(context.Background(), "DRUMQL_lost-test_STATUS"); err == nil {
					time.Sleep(300 * time.Millisecond)
					servers[0].Shutdown()
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
		stderr, code := mine("lost-test", "--reconnect", "1s")
		if code != 1 || !strings.Contains(stderr, "lost the connection") || !strings.Contains(stderr, "resume") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
}

// Addresses that are not NATS ones are usage errors (exit 2) before any
// work; drumql cluster runs lists a run abandoned by its coordinator and
// drumql cluster cancel removes it.
func TestClusterRunsCancel(t *testing.T) {
	for _, args := range [][]string{
		{"worker", "--cluster", "http://127.0.0.1:4222"},
		{"mine", "--cluster", "garbage url"},
		{"cluster", "runs", "--cluster", "https://nats.example.com"},
		{"cluster", "cancel", "--cluster", "nats://h:99999", "r1"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", filepath.Join(t.TempDir(), "db")}, args...)...)
		if code != 2 || !strings.Contains(stderr, "not a NATS server address") {
			t.Errorf("drumql %s: exit %d, want 2: %s", strings.Join(args, " "), code, stderr)
		}
	}
	urls, _ := natsCluster(t, 1)
	nc, err := cluster.Connect(cluster.ConnOptions{URL: urls[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	co := &cluster.Coordinator{Conn: nc, Run: "left-1"}
	mined := make(chan error, 1)
	go func() {
		_, err := co.Mine(ctx, cluster.Plan{Snapshot: []byte("s"), Groups: []miner.Group{{Heads: []string{"a"}}, {Heads: []string{"b"}}, {Heads: []string{"c"}}}})
		mined <- err
	}()
	// The run is there once its coordinator has enqueued the jobs.
	var out string
	for range 200 {
		out, _, _ = runCLI(t, "", "cluster", "runs", "--cluster", urls[0])
		if strings.Contains(out, "left-1") && strings.Contains(out, "0/3") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out, "left-1") || !strings.Contains(out, "0/3") {
		t.Fatalf("cluster runs does not list the run with 0/3 groups done:\n%s", out)
	}
	cancel() // the coordinator gives up: the run stays on the server
	<-mined
	if out, _, _ := runCLI(t, "", "cluster", "runs", "--cluster", urls[0]); !strings.Contains(out, "left-1") {
		t.Fatalf("cluster runs after the coordinator stopped:\n%s", out)
	}
	if _, stderr, code := runCLI(t, "", "cluster", "cancel", "--cluster", urls[0], "left-1"); code != 0 {
		t.Fatalf("cluster cancel: exit %d: %s", code, stderr)
	}
	if out, _, _ := runCLI(t, "", "cluster", "runs", "--cluster", urls[0]); strings.Contains(out, "left-1") {
		t.Errorf("cluster runs after cancel still lists the run:\n%s", out)
	}
	if _, stderr, code := runCLI(t, "", "cluster", "cancel", "--cluster", urls[0], "left-1"); code != 1 || !strings.Contains(stderr, "no such run") {
		t.Errorf("cancel a removed run: exit %d: %s", code, stderr)
	}
}
