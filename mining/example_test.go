package mining_test

import (
	"fmt"

	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/mining"
)

// The comment that starts a mined file says what was mined and how.
func ExampleRun_Header() {
	r := &mining.Run{
		From:   "family.db",
		Config: miner.Config{MaxLen: 3, Rank: 3, Batch: 64, Seed: 1},
		Result: &miner.Result{Rules: []miner.MinedRule{{Head: "wife"}, {Head: "wife"}, {Head: "son"}}},
	}
	fmt.Println(r.Header())
	// Output:
	// % drumql mine: 3 rules for 2 head relations from family.db
	// % T=3 L=3 batch=64 seed=1 epochs=0
}
