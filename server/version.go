package server

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
)

// Versions.
//
// Every request reads one version: a committed state of the store (a read
// view of it, store.Viewer, taken when the update that made the version
// committed), the program, the threshold of its materialisation and what
// is prepared for queries over them (the query checker, the policy, the
// noisy-or rescoring). A version never changes once published; the
// server's current one is an atomic pointer, replaced when an update
// commits. The one writer (updates are serialised by Server.wmu) changes
// the store and the materialisation beside the published version and
// publishes the next one at the end; a failed update publishes nothing.
//
// The materialisation in memory (maintain.Materialisation) answers
// lookups through its indexes without reading the store. There is one,
// changed in place by the writer: it answers for the version it holds
// (Server.mver) while no update changes it, and a reader that finds it
// busy, or holding another version, reads its version's store view
// instead (the same answers: the view holds that version's derived facts).
// So no reader waits for an update, and an update waits at most for the
// lookups that are using the materialisation when it starts.

// version is one committed state that requests read.
type version struct {
	n       uint64
	st      store.Store // the store as the version committed it (a read view, or the store)
	view    bool        // st is a read view, closed when the version is released
	prog    *datalog.Program
	min     float64 // the threshold of the version's derived facts
	updated time.Time
	rules   *ruleLines
	// refs counts the version's holders: the server while it is current,
	// and every request reading it. At 0 its view is closed.
	refs atomic.Int64

	// What is prepared for queries, once per version (not once per query:
	// a mined program has a hundred thousand rules).
	checker   atomic.Pointer[reasoner.QueryChecker]
	pol       atomic.Pointer[policy.Policy]
	noisyOr   atomic.Pointer[combine.StoredNoisyOr]
	noisyOrMu sync.Mutex             // prepares noisyOr once, not by every client at once
	sum       atomic.Pointer[string] // datalog.ProgramSum of prog (programSum)
}

// release drops a holder of v; the last one closes its view.
func (v *version) release() {
	if v.refs.Add(-1) == 0 && v.view {
		_ = v.st.Close()
	}
}

// ruleLines are the lines of the rule files of one program, read once
// (the rules' comments come from them), shared by the versions of that
// program. A rule edit reads them before it rewrites the files, so a
// version keeps the lines its rules' positions refer to.
type ruleLines struct {
	prog  *datalog.Program
	once  sync.Once
	files map[string][]string
}

// lines returns the lines of every rule file of the program.
func (l *ruleLines) lines() map[string][]string {
	l.once.Do(func() {
		l.files = map[string][]string{}
		for _, r := range l.prog.Rules {
			f := r.Pos.File
			if _, ok := l.files[f]; ok || f == "" {
				continue
			}
			var lines []string
			if src, err := os.ReadFile(f); err == nil {
				lines = strings.Split(string(src), "\n")
			}
			l.files[f] = lines
		}
	})
	return l.files
}

// acquire returns the current version, held by the caller until it calls
// release: its view stays open while the caller reads it.
func (s *Server) acquire() *version {
	for {
		v := s.cur.Load()
		// A version whose count fell to 0 is no longer current: the
		// server replaced it before dropping its own hold.
		if n := v.refs.Load(); n > 0 && v.refs.CompareAndSwap(n, n+1) {
			return v
		}
	}
}

// reading runs f on the current version, held while f runs, and returns
// it (its number names the answer).
func (s *Server) reading(f func(v *version)) *version {
	v := s.acquire()
	defer v.release()
	f(v)
	return v
}

// publish makes the state the writer committed (prog over the store as it
// is now, with the materialisation s.m, or none) the current version, and
// releases the previous one; it returns the new version's number. The
// caller holds wmu (or is New), and no write to the store is in flight.
func (s *Server) publish(prog *datalog.Program) uint64 {
	old := s.cur.Load()
	v := &version{prog: prog, st: s.st, updated: time.Now()}
	if old != nil {
		v.n, v.min = old.n+1, old.min
		if old.prog == prog {
			v.rules = old.rules
		}
	} else {
		v.n = 1
	}
	if v.rules == nil {
		v.rules = &ruleLines{prog: prog}
	}
	if s.m != nil {
		v.min = s.m.Min()
	}
	if vw, ok := s.st.(store.Viewer); ok {
		if st, err := vw.ReadView(); err == nil {
			v.st, v.view = st, true
		}
		// Without a view (a store that cannot give one) the version
		// reads the store itself, as before versions.
	}
	v.refs.Store(1)
	s.cur.Store(v)
	s.setM(s.m, v.n)
	s.imageSoon()
	if old != nil {
		old.release()
	}
	return v.n
}

// setM sets the materialisation and the version it holds (0: none, or it
// is being changed); it waits for the lookups using the materialisation.
// The caller holds wmu.
func (s *Server) setM(m *maintain.Materialisation, n uint64) {
	s.mmu.Lock()
	s.m, s.mver = m, n
	if m == nil {
		s.mver = 0
	}
	s.mmu.Unlock()
}

// withM runs f on the materialisation when it holds version v and no
// update is changing it, and reports whether it did; otherwise the
// caller reads v's store. It never waits for an update.
func (s *Server) withM(v *version, f func(m *maintain.Materialisation) error) (bool, error) {
	if !s.mmu.TryRLock() {
		return false, nil // an update takes the materialisation
	}
	defer s.mmu.RUnlock()
	if s.m == nil || s.mver != v.n {
		return false, nil
	}
	return true, f(s.m)
}

// policy returns the query policy of v, made once.
func (v *version) policy() *policy.Policy {
	if p := v.pol.Load(); p != nil {
		return p
	}
	p := policy.New(v.st, v.prog)
	if !v.pol.CompareAndSwap(nil, p) {
		return v.pol.Load()
	}
	return p
}

// storedNoisyOr returns the noisy-or rescoring over v's derived facts,
// prepared once.
func (s *Server) storedNoisyOr(ctx context.Context, v *version) (*combine.StoredNoisyOr, error) {
	if sn := v.noisyOr.Load(); sn != nil {
		return sn, nil
	}
	v.noisyOrMu.Lock()
	defer v.noisyOrMu.Unlock()
	if sn := v.noisyOr.Load(); sn != nil {
		return sn, nil
	}
	sn, err := combine.PrepareStoredNoisyOr(ctx, v.st, v.prog, reasoner.Options{Min: v.min, MaxFacts: s.cfg.MaxFacts, Threads: s.cfg.Threads, MaxMemory: s.cfg.MaxMemory, MaxString: s.cfg.MaxString})
	if err != nil {
		return nil, err
	}
	v.noisyOr.Store(sn)
	return sn, nil
}
