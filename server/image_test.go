package server

import (
	"context"
	"net/http"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/maintain"
)

// TestImageKeptCurrent: after an update the server writes the
// materialisation image (Config.ImageDelay later), so that a catch-up of
// the store, as `drumql infer` runs once the server has stopped, resumes
// from the image and finds nothing to do; a server that is stopping
// writes none.
func TestImageKeptCurrent(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.ImageDelay = time.Millisecond })
	images := make(chan struct{}, 16)
	e.srv.wmu.Lock() // writeImage reads the hook under wmu
	e.srv.hook = func(_ context.Context, stage string) {
		if stage == "image" {
			images <- struct{}{}
		}
	}
	e.srv.wmu.Unlock()
	// wait waits for the image of the current version (an earlier write,
	// such as the one after New, may signal first).
	wait := func(what string) {
		t.Helper()
		for {
			select {
			case <-images:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: no image written", what)
			}
			e.srv.wmu.Lock()
			done := e.srv.img.fresh && e.srv.mver == e.srv.cur.Load().n
			e.srv.wmu.Unlock()
			if done {
				return
			}
		}
	}
	catchup := func() maintain.CatchupResult {
		t.Helper()
		e.srv.wmu.Lock()
		defer e.srv.wmu.Unlock()
		res, err := maintain.Catchup(context.Background(), e.st, e.srv.cur.Load().prog, e.srv.options(), maintain.CatchupOptions{Parse: parser.ParseString, Keep: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["dan", "husband", "erin"]]}`)
	wait("after adding a fact")
	if res := catchup(); !res.FromImage || res.Changed || len(res.Notes) > 0 {
		t.Errorf("after the image of the update: from the image %t, changed %t, notes %q; want from the image, unchanged", res.FromImage, res.Changed, res.Notes)
	}
	e.mustDo(http.StatusOK, "POST", "/v1/rules", `{"add": ["0.7 :: spouse(A, B) :- wife(A, B)."]}`)
	wait("after adding a rule")
	if res := catchup(); !res.FromImage || res.Changed {
		t.Errorf("after the image of the rule edit: from the image %t, changed %t, notes %q", res.FromImage, res.Changed, res.Notes)
	}
	// Stopping: the next update's image is not written.
	e.srv.stopping.Store(true)
	e.srv.wmu.Lock()
	e.srv.img.fresh = false
	e.srv.wmu.Unlock()
	// A write that ran before signalled under wmu, so its signal is in
	// the channel by now: drop it (a timer of the rule edit's update
	// could fire after wait returned, and failed this test once in CI).
	for len(images) > 0 {
		<-images
	}
	e.srv.writeImage()
	select {
	case <-images:
		t.Errorf("an image was written while the server stopped")
	default:
	}
}

// TestUpdateCollectsOften: an update runs the collector at infer's GOGC
// (the process's peak memory is there, and --max-memory is peak RSS), and
// the setting is restored after it.
func TestUpdateCollectsOften(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set in the environment: it wins")
	}
	e := newEnv(t, testGraph, testRules, nil)
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	before := gcPercent()
	during := -2
	e.srv.hook = func(_ context.Context, stage string) {
		if stage == "applying" {
			during = gcPercent()
		}
	}
	e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["dan", "husband", "erin"]]}`)
	if during != sysmem.InferGC {
		t.Errorf("GOGC during an update: %d, want %d", during, sysmem.InferGC)
	}
	if after := gcPercent(); after != before {
		t.Errorf("GOGC after the update: %d, want %d as before it", after, before)
	}
}
