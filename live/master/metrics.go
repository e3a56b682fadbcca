package master

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the master's Prometheus metrics (served on /metrics).
type metrics struct {
	reg             *prometheus.Registry
	workers         *prometheus.GaugeVec
	held            prometheus.Gauge
	iteration       prometheus.Gauge
	open            prometheus.Gauge
	completions     prometheus.Counter
	refused         prometheus.Counter
	decisions       prometheus.Counter
	heartbeats      prometheus.Counter
	transfers       prometheus.Counter
	transferBytes   prometheus.Counter
	authFailures    prometheus.Counter
	decisionSeconds prometheus.Histogram
	unobserved      prometheus.Gauge
	sockets         prometheus.Gauge
	udpHeartbeats   prometheus.Counter
	beatsRefused    prometheus.Counter
	beatFallbacks   prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.workers = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "volsched_workers", Help: "Workers by state as the master sees them."}, []string{"state"})
	m.held = prometheus.NewGauge(prometheus.GaugeOpts{Name: "volsched_channels_held", Help: "Transfers holding one of the n_com channels."})
	m.iteration = prometheus.NewGauge(prometheus.GaugeOpts{Name: "volsched_iteration", Help: "The current iteration."})
	m.open = prometheus.NewGauge(prometheus.GaugeOpts{Name: "volsched_open_tasks", Help: "Tasks of the iteration not completed."})
	m.completions = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_completions_total", Help: "Results accepted."})
	m.refused = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_refused_total", Help: "Results and reports refused."})
	m.decisions = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_decisions_total", Help: "Calls of the heuristic."})
	m.heartbeats = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_heartbeats_total", Help: "Heart-beats received."})
	m.transfers = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_transfers_total", Help: "Transfers (program or data) reported done."})
	m.transferBytes = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_transfer_bytes_total", Help: "Bytes of the transfers reported done."})
	m.authFailures = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_auth_failures_total", Help: "Requests with a missing, unknown or revoked token."})
	m.decisionSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "volsched_decision_seconds", Help: "Time of one decision (snapshot and heuristic).",
		Buckets: prometheus.ExponentialBuckets(1e-6, 4, 12)})
	m.unobserved = prometheus.NewGauge(prometheus.GaugeOpts{Name: "volsched_slots_unobserved", Help: "Slot boundaries left out of the chains' estimates because the master's clock tick came more than a slot late."})
	m.sockets = prometheus.NewGauge(prometheus.GaugeOpts{Name: "volsched_session_sockets", Help: "Open session sockets (workers connected)."})
	m.udpHeartbeats = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_udp_heartbeats_total", Help: "Heart-beats received by UDP datagram (also counted in volsched_heartbeats_total)."})
	m.beatsRefused = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_udp_heartbeats_refused_total", Help: "Heart-beat datagrams refused: malformed, unknown session, bad signature, replayed."})
	m.beatFallbacks = prometheus.NewCounter(prometheus.CounterOpts{Name: "volsched_udp_heartbeat_fallbacks_total", Help: "Sessions sent back to heart-beats on their socket because their datagrams stopped arriving."})
	m.reg.MustRegister(m.sockets, m.udpHeartbeats, m.beatsRefused, m.beatFallbacks, m.unobserved, m.workers, m.held, m.iteration, m.open, m.completions, m.refused, m.decisions, m.heartbeats, m.transfers, m.transferBytes,
		m.authFailures, m.decisionSeconds, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
