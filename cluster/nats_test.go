package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/miner"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsServer starts a NATS server on loopback (a random port), with or
// without JetStream, and returns its URL; the test shuts it down.
func natsServer(t *testing.T, withJS bool) string {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: withJS, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	if !s.ReadyForConnections(20 * time.Second) {
		t.Fatal("the NATS server is not ready")
	}
	return s.ClientURL()
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"nats://127.0.0.1:4222", true},
		{"tls://nats.example.com:4222", true},
		{"ws://h:8080", true},
		{"127.0.0.1:4222", true},
		{"localhost", true},
		{"nats://a:1, nats://b:2", true},
		{"nats://[::1]:4222", true},
		{"http://127.0.0.1:4222", false},
		{"https://nats.example.com", false},
		{"garbage url", false},
		{"nats://h:99999", false},
		{"nats://h:4222/path", false},
		{"nats://a:1,http://b:2", false},
		{"", false},
		{"::::", false},
	} {
		err := CheckURL(tc.url)
		if tc.ok && err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", tc.url, err)
		}
		if !tc.ok && !errors.Is(err, ErrBadURL) {
			t.Errorf("CheckURL(%q) = %v, want ErrBadURL", tc.url, err)
		}
	}
	if _, err := Connect(ConnOptions{URL: "http://127.0.0.1:4222"}); !errors.Is(err, ErrBadURL) {
		t.Errorf("Connect(http://...) = %v, want ErrBadURL", err)
	}
}

// A server without JetStream is said so, by Connect and by a worker (which
// looped for ever on "no responders").
func TestNoJetStream(t *testing.T) {
	url := natsServer(t, false)
	_, err := Connect(ConnOptions{URL: url})
	if !errors.Is(err, ErrNoJetStream) || !strings.Contains(err.Error(), "start nats-server with -js") {
		t.Fatalf("Connect to a server without JetStream: %v, want ErrNoJetStream", err)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := &Worker{Conn: nc, Name: "w", Poll: 10 * time.Millisecond}
	if err := w.Run(ctx); !errors.Is(err, ErrNoJetStream) {
		t.Fatalf("worker on a server without JetStream: %v, want ErrNoJetStream", err)
	}
	co := &Coordinator{Conn: nc, Run: "r1"}
	if _, err := co.Mine(ctx, Plan{Snapshot: []byte("x"), Groups: []miner.Group{{Heads: []string{"h"}}}}); !errors.Is(err, ErrNoJetStream) {
		t.Fatalf("coordinator on a server without JetStream: %v, want ErrNoJetStream", err)
	}
}

// With no worker the coordinator says, and keeps saying, that no worker has
// taken a job; the run is listed, expires after DefaultExpire, and once
// cancelled it is gone and its coordinator stops.
func TestIdleRunListedAndCancelled(t *testing.T) {
	url := natsServer(t, true)
	nc, err := Connect(ConnOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	said := make(chan string, 16)
	co := &Coordinator{Conn: nc, Run: "idle-1", IdleWarn: 20 * time.Millisecond, Logf: func(format string, args ...any) {
		select {
		case said <- fmtS(format, args...):
		default:
		}
	}}
	mined := make(chan error, 1)
	go func() {
		_, err := co.Mine(ctx, Plan{Snapshot: []byte("snapshot"), Groups: []miner.Group{{Heads: []string{"a"}}, {Heads: []string{"b"}}}})
		mined <- err
	}()
	for warnings := 0; warnings < 2; {
		select {
		case s := <-said:
			if strings.Contains(s, "no worker has taken a job") {
				warnings++
			}
		case err := <-mined:
			t.Fatalf("the coordinator stopped: %v", err)
		case <-ctx.Done():
			t.Fatal("the coordinator never said that no worker took a job")
		}
	}
	runs, err := ListRuns(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != "idle-1" || runs[0].Groups != 2 || runs[0].Done != 0 || runs[0].Queued != 2 || runs[0].Created.IsZero() {
		t.Fatalf("ListRuns = %+v, want run idle-1 with 2 groups, 0 done, 2 queued", runs)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, Names{Run: "idle-1"}.Jobs())
	if err != nil {
		t.Fatal(err)
	}
	if age := st.CachedInfo().Config.MaxAge; age != DefaultExpire {
		t.Errorf("job stream MaxAge %s, want %s", age, DefaultExpire)
	}
	if err := CancelRun(ctx, nc, "idle-1"); err != nil {
		t.Fatal(err)
	}
	if err := <-mined; !errors.Is(err, ErrRunCancelled) {
		t.Errorf("coordinator of a cancelled run: %v, want ErrRunCancelled", err)
	}
	if runs, err := ListRuns(ctx, nc); err != nil || len(runs) != 0 {
		t.Errorf("ListRuns after cancel = %+v, %v; want none", runs, err)
	}
	if err := CancelRun(ctx, nc, "idle-1"); !errors.Is(err, ErrRunNotFound) {
		t.Errorf("cancel a cancelled run: %v, want ErrRunNotFound", err)
	}
}

func fmtS(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// jetStream connects to a NATS server with JetStream started for t on a
// loopback port and returns the connection, its JetStream context and a
// context that ends 30 s later; all are closed when t ends.
func jetStream(t *testing.T) (*nats.Conn, jetstream.JetStream, context.Context) {
	t.Helper()
	nc, err := Connect(ConnOptions{URL: natsServer(t, true)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js, ctx
}

// A stream that takes a run's job subjects but is not named DRUMQL_<run>_JOBS
// is not a run.
func TestListRunsSkipsForeignStreams(t *testing.T) {
	nc, js, ctx := jetStream(t)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "OTHER_x_JOBS", Subjects: []string{"drumql.x.job.*"}}); err != nil {
		t.Fatal(err)
	}
	if runs, err := ListRuns(ctx, nc); err != nil || len(runs) != 0 {
		t.Errorf("ListRuns = %+v, %v; want no run", runs, err)
	}
}
