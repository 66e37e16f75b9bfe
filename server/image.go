package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/store"
)

// DefaultImageDelay is Config.ImageDelay's default: a burst of updates
// writes one image, after its last.
const DefaultImageDelay = time.Second

// imageState is what the server knows of the materialisation image (the
// evaluator's state beside the store, which `drumql infer` resumes from
// instead of reading the derived facts back: maintain.SaveImage).
type imageState struct {
	timer *time.Timer // armed by imageSoon, under wmu
	// fresh is set when the image on disk is of the materialisation as it
	// is (written, or read and not changed since); under wmu.
	fresh bool
	// mu is held while an image is written: Serve waits for it before
	// the store closes.
	mu sync.Mutex
}

// errStopping fails the write of an image once Serve stops: the image on
// disk stays as it was (an image is renamed into place whole or not at
// all), and the process exits without waiting for the write.
var errStopping = errors.New("serve is stopping")

// stoppingFS is the operating system's file system for images, whose
// writes fail once stop is set.
type stoppingFS struct {
	store.OSImageFS
	stop *atomic.Bool
}

// CreateTemp implements store.ImageFS.
func (f stoppingFS) CreateTemp(dir, pattern string) (store.ImageTemp, error) {
	if f.stop.Load() {
		return nil, errStopping
	}
	t, err := f.OSImageFS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return stoppingTemp{t, f.stop}, nil
}

// stoppingTemp is an image's temporary file whose writes fail once stop
// is set.
type stoppingTemp struct {
	store.ImageTemp
	stop *atomic.Bool
}

// Write implements io.Writer.
func (t stoppingTemp) Write(b []byte) (int, error) {
	if t.stop.Load() {
		return 0, errStopping
	}
	return t.ImageTemp.Write(b)
}

// imageSoon arms the image's timer after an update published a version:
// the image is written Config.ImageDelay later unless another update
// comes first. The caller holds wmu.
func (s *Server) imageSoon() {
	if s.cfg.ImageDelay < 0 || s.m == nil {
		return
	}
	if _, ok := s.st.(*store.DB); !ok {
		return // an in-memory store has no directory
	}
	if s.img.timer == nil {
		s.img.timer = time.AfterFunc(s.cfg.ImageDelay, s.writeImage)
		return
	}
	s.img.timer.Reset(s.cfg.ImageDelay)
}

// writeImage writes the image of the materialisation when it holds the
// current version and the image on disk is not of it. It holds wmu, so no
// update changes the materialisation meanwhile (readers may read it), and
// img.mu while it writes.
func (s *Server) writeImage() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	cur := s.cur.Load()
	db, ok := s.st.(*store.DB)
	if !ok || s.stopping.Load() || s.m == nil || cur == nil || s.mver != cur.n || s.img.fresh {
		return
	}
	s.img.mu.Lock()
	note := s.m.SaveImage(db, stoppingFS{stop: &s.stopping})
	s.img.mu.Unlock()
	switch {
	case note == "":
		s.img.fresh = true
	case s.cfg.Logger != nil && !s.stopping.Load():
		s.cfg.Logger.LogAttrs(context.Background(), slog.LevelWarn, "image", slog.String("note", note))
	}
	if s.hook != nil {
		s.hook(context.Background(), "image")
	}
}

// stopImage waits for an image being written, which fails at its next
// write once Serve is stopping (the image on disk stays whole): the store
// may close after it returns. A timer that fires later finds the server
// stopping and writes nothing.
func (s *Server) stopImage() {
	s.img.mu.Lock()
	//lint:ignore SA2001 the lock is taken only to wait for the writer
	s.img.mu.Unlock()
}
