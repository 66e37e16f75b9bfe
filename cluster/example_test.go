package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
	"github.com/nats-io/nats-server/v2/server"
)

// A coordinator mines two head groups on a worker over a NATS JetStream
// server: here one in process on a loopback port, and the worker in the
// same process too; `drumql mine --cluster URL --head-groups N` and
// `drumql worker URL` do the same across machines. The rules of each group
// are those of miner.Mine with the group's heads.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// The graph: 12 couples, each with a child.
	st := store.NewMemory()
	var graph []store.NamedTriple
	for i := range 12 {
		h, w, c := fmt.Sprint("h", i), fmt.Sprint("w", i), fmt.Sprint("c", i)
		graph = append(graph,
			store.NamedTriple{S: h, R: "husband", O: w},
			store.NamedTriple{S: w, R: "wife", O: h},
			store.NamedTriple{S: w, R: "mother", O: c},
			store.NamedTriple{S: h, R: "father", O: c})
	}
	if _, err := st.Load(ctx, &store.Batch{Graph: graph}, nil); err != nil {
		fmt.Println(err)
		return
	}
	g, err := miner.LoadGraph(ctx, st)
	if err != nil {
		fmt.Println(err)
		return
	}
	groups, err := miner.HeadGroups(st, g, []string{"wife", "father"}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	var snapshot bytes.Buffer
	if err := miner.WriteSnapshot(ctx, &snapshot, st); err != nil {
		fmt.Println(err)
		return
	}

	// The server, with JetStream, on a loopback port of its choice.
	dir, err := os.MkdirTemp("", "cluster-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	ns.Start()
	defer ns.WaitForShutdown()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		fmt.Println("the server is not ready")
		return
	}

	// A worker, until the run is done; it takes only the jobs of its own
	// Version.
	wc, err := cluster.Connect(cluster.ConnOptions{URL: ns.ClientURL(), Name: "worker"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer wc.Close()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	worked := make(chan error, 1)
	go func() {
		w := &cluster.Worker{Conn: wc, Name: "worker-1", Version: "example", Threads: 1, Poll: 50 * time.Millisecond}
		worked <- w.Run(wctx)
	}()

	// The coordinator.
	nc, err := cluster.Connect(cluster.ConnOptions{URL: ns.ClientURL(), Name: "coordinator"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	co := &cluster.Coordinator{Conn: nc, Run: "example-1", Version: "example"}
	opt := miner.Options{Config: miner.Config{MaxEpochs: 5}, NoConstants: true}
	results, err := co.Mine(ctx, cluster.Plan{Snapshot: snapshot.Bytes(), Options: opt, Groups: groups})
	stop()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := <-worked; err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("group %d %v, mined by %s:\n", r.Group, groups[r.Group-1].Heads, r.Worker)
		for _, rule := range r.Rules {
			fmt.Printf("   %v\n", rule.Rule)
		}
	}
	// Output:
	// group 1 [father], mined by worker-1:
	//    0.7059 :: father(A, B) :- wife(C, A), mother(C, B), A != B.
	//    0.7059 :: father(A, B) :- husband(A, C), mother(C, B), A != B.
	// group 2 [wife], mined by worker-1:
	//    0.7059 :: wife(A, B) :- husband(B, A).
	//    0.7059 :: wife(A, B) :- mother(A, C), father(B, C), A != B.
}
