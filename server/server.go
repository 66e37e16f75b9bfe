package server

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
)

// Defaults of Config.
const (
	DefaultQueryTimeout = 30 * time.Second
	DefaultMaxBody      = 1 << 20
	DefaultMaxFacts     = 5_000_000
	// MaxListedFacts is the number of changed facts an update lists.
	MaxListedFacts = 100
)

// Config is what a Server serves. The zero value of each optional field
// means its default.
type Config struct {
	// Store is the store, open for writing; the Server never closes it.
	Store store.Store
	// Program is the loaded program (the rule files merged); nil means no
	// rules.
	Program *datalog.Program
	// Validated says Program was checked with datalog.Validate and has no
	// error (drumql serve's loading does): bringing the materialisation
	// up to date at start does not validate it again.
	Validated bool
	// DB is the store's directory: Serve writes DB/serve.addr (its
	// address and process id, internal/servefile) while it serves, for
	// the commands the store's lock refuses to name it. Empty: none.
	DB string
	// Files are the rule files the program was loaded from, for /v1/stats.
	Files []string
	// Edits is the file that rules added through POST /v1/rules are
	// appended to (created when needed). Empty: rules cannot be added.
	Edits string
	// Min overrides the program's threshold (0: the program's @min, or an
	// exact evaluation).
	Min float64
	// MaxFacts caps the facts an evaluation may derive: a query or an
	// update beyond it is refused (413). 0 means DefaultMaxFacts.
	MaxFacts int
	// MaxMemory caps the memory (bytes) the process holds (the Go runtime's
	// and the resident pages of the store's mapped files) while an
	// update or a query evaluates (reasoner.Options.MaxMemory): beyond it
	// the update is refused and rolled back, a query stopped, the served
	// state kept (memory_limit: 413 alone, 503 with Retry-After beside
	// other requests; memoryRefusal). 0: no cap.
	MaxMemory int64
	// MaxString caps the strings an update or a query may make
	// (reasoner.Options.MaxString: 413 beyond it, nothing changed) and the
	// names of POST /v1/facts (400). 0 means store.MaxNameLen, 1 MiB.
	MaxString int
	// Threads is the number of goroutines an evaluation may use (0: all
	// cores).
	Threads int
	// RequestProcs, when positive, is the number of processors an update
	// that runs longer than half a second adds to the process's GOMAXPROCS
	// until it ends (unless the GOMAXPROCS environment variable sets it),
	// so that a request finds an idle processor while the update's
	// workers, the store's compactions and flushes and the collector hold
	// the others: with GOMAXPROCS at the core count, a lookup that became
	// runnable during a long rule edit queued behind them, for up to 10 ms
	// each goroutine ahead of it (docs/BENCHMARKS.md, "drumql serve beside
	// a writer"). The kernel then shares the cores among the threads, and
	// a reader's thread, which mostly sleeps, runs soon after it wakes. The
	// update still evaluates on Threads goroutines. The CLI passes
	// DefaultRequestProcs.
	RequestProcs int
	// QueryTimeout limits a query or an explanation (503 beyond it); 0
	// means DefaultQueryTimeout.
	QueryTimeout time.Duration
	// MaxBody is the largest request body, in bytes (413 beyond it); 0
	// means DefaultMaxBody.
	MaxBody int64
	// Token, when not empty, is required as "Authorization: Bearer TOKEN"
	// by every request that changes something (POST /v1/rules and
	// /v1/facts).
	Token string
	// ReadToken, when not empty, is required (or Token) by every request
	// that reads the store: queries, proofs, the rules and the stats. The
	// page, its files, /v1/health, /v1/openapi.json and /metrics stay
	// open.
	ReadToken string
	// ImageDelay is how long after an update, with no other update in
	// between, the server writes the materialisation image beside the
	// store (see imageSoon), so that `drumql infer` after the server
	// stops resumes from it; 0 means DefaultImageDelay, a negative value
	// never (the next infer reads the derived facts from the store).
	ImageDelay time.Duration
	// Logger receives one line per request; nil logs nothing.
	Logger *slog.Logger
}

// Server answers the JSON API over one store, one program and its
// materialisation. Its handler is safe for concurrent use: updates are
// serialised (wmu), and every request reads one committed version (see
// version), never a part of an update, and never waits for one.
type Server struct {
	cfg Config
	st  store.Store
	// wmu serialises the updates: the writer changes the store and the
	// materialisation and publishes the next version.
	wmu sync.Mutex
	// cur is the version requests read (acquire).
	cur atomic.Pointer[version]
	// m is the materialisation, changed in place by the writer; mver is
	// the version it holds, 0 while an update changes it or after one
	// failed. Both are written under wmu and mmu; readers read them
	// under mmu (withM).
	mmu  sync.RWMutex
	m    *maintain.Materialisation
	mver uint64
	// epoch tells this process's versions from another's in ETags.
	epoch   string
	started time.Time
	metrics *metrics
	handler http.Handler
	// inFlight counts the requests being answered.
	inFlight atomic.Int64
	// holding counts the reads and writes being answered (read and auth):
	// the requests that may hold memory (memoryRefusal).
	holding atomic.Int64
	// active waits for the handlers running (Serve's shutdown).
	active sync.WaitGroup
	// stopping is set when Serve shuts down: a failed update no longer
	// rebuilds the materialisation (the next start catches up).
	stopping atomic.Bool
	// img writes the materialisation image after updates (imageSoon).
	img imageState
	// hook, when set (tests), is called by an update with the stage it
	// reached: "applying" before the materialisation changes, "written"
	// once the store has the update, before it is published; ctx is the
	// update's.
	hook func(ctx context.Context, stage string)
}

// New brings the store's derived facts up to date with cfg.Program, as
// `drumql infer` does (maintain.Catchup, or an evaluation from scratch when the
// store has no usable record), keeps the materialisation in memory and
// returns the Server. what, if not nil, is told how the derived facts were
// brought up to date.
func New(ctx context.Context, cfg Config, what func(string)) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: no store")
	}
	if db, ok := cfg.Store.(*store.DB); ok {
		db.KeepMapped() // readers read the tables an update writes beside them
	}
	if cfg.Program == nil {
		cfg.Program = &datalog.Program{}
	}
	if cfg.MaxString <= 0 || cfg.MaxString > store.MaxNameLen {
		cfg.MaxString = store.MaxNameLen
	}
	if cfg.MaxFacts <= 0 {
		cfg.MaxFacts = DefaultMaxFacts
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.ImageDelay == 0 {
		cfg.ImageDelay = DefaultImageDelay
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Threads <= 0 {
		cfg.Threads = runtime.GOMAXPROCS(0)
	}
	s := &Server{cfg: cfg, st: cfg.Store, started: time.Now()}
	s.epoch = strconv.FormatInt(s.started.UnixNano(), 36)
	start := time.Now()
	how, err := s.materialise(ctx, cfg.Program)
	if err != nil {
		return nil, err
	}
	s.publish(cfg.Program)
	if what != nil {
		what(fmt.Sprintf("derived facts %s in %s", how, time.Since(start).Round(time.Millisecond)))
	}
	s.metrics = newMetrics(s)
	s.metrics.updates.Observe(time.Since(start).Seconds())
	s.handler = s.routes()
	return s, nil
}

// options are the evaluation options of updates (and of queries, whose
// threshold is their own).
func (s *Server) options() reasoner.Options {
	return reasoner.Options{Min: s.cfg.Min, MaxFacts: s.cfg.MaxFacts, Threads: s.cfg.Threads, MaxMemory: s.cfg.MaxMemory, MaxString: s.cfg.MaxString}
}

// materialise sets s.m to the materialisation of prog, brought up to date
// in the store, and says how. The caller holds wmu (or is New).
func (s *Server) materialise(ctx context.Context, prog *datalog.Program) (string, error) {
	res, err := maintain.Catchup(ctx, s.st, prog, s.options(), maintain.CatchupOptions{Parse: parser.ParseString, Keep: true, Validated: s.cfg.Validated && prog == s.cfg.Program})
	if err != nil {
		return "", err
	}
	s.img.fresh = false
	if !res.Recompute {
		s.setM(res.M, 0)
		s.img.fresh = res.FromImage && !res.Changed
		switch {
		case !res.Changed:
			return "up to date", nil
		case res.Change.Full:
			return "recomputed", nil
		}
		return fmt.Sprintf("updated (+%d −%d ~%d)", res.Change.Added, res.Change.Removed, res.Change.Reweighted), nil
	}
	m, _, err := maintain.Materialise(ctx, s.st, prog, s.options())
	if err != nil {
		return "", err
	}
	n, err := m.Write(ctx)
	if err != nil {
		return "", err
	}
	s.setM(m, 0)
	how := fmt.Sprintf("computed (%d facts)", n)
	if res.Why != "" {
		how += ": " + res.Why
	}
	return how, nil
}

// tag says which version answered: the headers ETag ("EPOCH-VERSION")
// and Drumql-Version.
func (s *Server) tag(w http.ResponseWriter, version uint64) {
	v := strconv.FormatUint(version, 10)
	w.Header().Set("ETag", `"`+s.epoch+"-"+v+`"`)
	w.Header().Set("Drumql-Version", v)
}

// Handler returns the HTTP handler of the API.
func (s *Server) Handler() http.Handler { return s.handler }

// routes builds the handler: every route behind the request log and the
// metrics.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	allow := map[string][]string{}
	handle := func(pattern, endpoint string, h http.HandlerFunc) {
		mux.Handle(pattern, s.instrument(endpoint, h))
		method, _, _ := strings.Cut(pattern, " ")
		allow[endpoint] = append(allow[endpoint], method)
	}
	handle("GET /v1/health", "/v1/health", s.health)
	handle("GET /v1/openapi.json", "/v1/openapi.json", s.openapi)
	handle("POST /v1/query", "/v1/query", s.read(s.query))
	handle("POST /v1/explain", "/v1/explain", s.read(s.explain))
	handle("GET /v1/rules", "/v1/rules", s.read(s.listRules))
	handle("POST /v1/rules", "/v1/rules", s.auth(s.editRules))
	handle("POST /v1/facts", "/v1/facts", s.auth(s.editFacts))
	handle("POST /v1/load", "/v1/load", s.auth(s.loadFiles))
	handle("POST /v1/retract", "/v1/retract", s.auth(s.retractFiles))
	handle("POST /v1/infer", "/v1/infer", s.auth(s.inferProgram))
	handle("GET /v1/stats", "/v1/stats", s.read(s.stats))
	handle("GET /v1/summary", "/v1/summary", s.read(s.summary))
	handle("GET /metrics", "/metrics", s.metrics.handler().ServeHTTP)
	for path, methods := range allow {
		// the other methods of a path: 405
		mux.Handle(path, s.instrument(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", strings.Join(methods, ", "))
			writeError(w, http.StatusMethodNotAllowed, apiError{Error: fmt.Sprintf("%s %s: use %s", clip(r.Method), path, strings.Join(methods, " or "))})
		}))
	}
	// the web page and its assets (GET and HEAD)
	mux.Handle("GET /{$}", s.instrument("/", s.page))
	mux.Handle("GET /static/", s.instrument("/static/", s.static()))
	mux.Handle("/", s.instrument("other", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, apiError{Error: fmt.Sprintf("no endpoint %s %s (the page is at /, the API under /v1: see /v1/openapi.json)", clip(r.Method), clip(r.URL.Path))})
	}))
	return mux
}

// statusWriter records the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streamed answers through.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// instrument logs one line per request and counts it in the metrics.
func (s *Server) instrument(endpoint string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.active.Add(1)
		defer s.active.Done()
		s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		sw := &statusWriter{ResponseWriter: w}
		r.Body = http.MaxBytesReader(sw, r.Body, s.cfg.MaxBody)
		h(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		d := time.Since(start)
		s.metrics.observe(endpoint, r.Method, sw.status, d)
		if s.cfg.Logger != nil {
			s.cfg.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", sw.status), slog.Float64("duration_ms", float64(d.Microseconds())/1000))
		}
	})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

//go:embed openapi.json
var openapiJSON []byte

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openapiJSON)
}
