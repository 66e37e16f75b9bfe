package cluster

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The goroutine that reads the status stream ends when the run stops
// reading it, even with a message waiting to be sent: it blocked for ever
// on a full reports channel once Mine had returned.
func TestReadStatusStops(t *testing.T) {
	nc, js, ctx := jetStream(t)
	names, err := NewNames("stop-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: names.Status(), Subjects: []string{names.StatusSubject()}}); err != nil {
		t.Fatal(err)
	}
	c := &Coordinator{Conn: nc, Run: names.Run}
	reports, _, stop, err := c.readStatus(ctx, js, names)
	if err != nil {
		t.Fatal(err)
	}
	// More messages than reports holds: the consumer then waits to send one.
	for range cap(reports) + 10 {
		if _, err := js.Publish(ctx, names.StatusSubject(), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	for len(reports) < cap(reports) {
		if ctx.Err() != nil {
			t.Fatalf("reports holds %d of %d messages", len(reports), cap(reports))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !statusReaderRunning() {
		t.Fatal("no goroutine waits to send a status report")
	}
	stop()
	for deadline := time.Now().Add(10 * time.Second); statusReaderRunning(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the status reader still waits to send a report after stop")
		}
	}
}

// statusReaderRunning says whether a goroutine is in the callback that
// readStatus gives the status consumer.
func statusReaderRunning() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Contains(string(buf[:n]), "(*Coordinator).readStatus.func")
		}
		buf = make([]byte, 2*len(buf))
	}
}
