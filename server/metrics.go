package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the Prometheus metrics of a Server, in a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	updates  prometheus.Histogram
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "drumql_http_requests_total",
		Help: "HTTP requests answered, by endpoint, method and status.",
	}, []string{"endpoint", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "drumql_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by endpoint, method and status.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"endpoint", "method", "status"})
	m.updates = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "drumql_update_duration_seconds",
		Help:    "Time to bring the materialisation up to date: at start and for every rule or fact edit.",
		Buckets: prometheus.ExponentialBuckets(.001, 4, 10),
	})
	counts := func(f func(Stats) int) func() float64 {
		return func() float64 {
			var st Stats
			var err error
			s.reading(func(v *version) { st, err = s.collect(v) })
			if err != nil {
				return -1
			}
			return float64(f(st))
		}
	}
	m.reg.MustRegister(m.requests, m.latency, m.updates,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "drumql_base_facts", Help: "Base facts in the store."},
			counts(func(s Stats) int { return s.BaseFacts })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "drumql_derived_facts", Help: "Derived facts in the store (the materialisation)."},
			counts(func(s Stats) int { return s.DerivedFacts })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "drumql_rules", Help: "Rules of the loaded program."},
			counts(func(s Stats) int { return s.Rules })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "drumql_http_requests_in_flight", Help: "HTTP requests being answered."},
			func() float64 { return float64(s.inFlight.Load()) }),
		collectors.NewGoCollector(),
	)
	return m
}

// methodLabel is the label of a request's method: one of HTTP's, or
// "other" for any made-up one (a client must not grow the metrics).
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

// observe counts a request; endpoint is one of the routes' (or "other"),
// the method is reduced by methodLabel.
func (m *metrics) observe(endpoint, method string, status int, d time.Duration) {
	method = methodLabel(method)
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(endpoint, method, code).Inc()
	m.latency.WithLabelValues(endpoint, method, code).Observe(d.Seconds())
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
