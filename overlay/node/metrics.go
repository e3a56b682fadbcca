package node

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// collector exports a node's status to Prometheus, read once per scrape.
type collector struct {
	n                                                  *Node
	msgsOut, bytesOut, msgsIn, bytesIn                 *prometheus.Desc
	dropped, refused, invalid, stale                   *prometheus.Desc
	routers, depth, subtreeLeaves, available           *prometheus.Desc
	claimed, waiting, running, held, tasksRun          *prometheus.Desc
	bagTasks, bagDone, bagFailed, bagPending, bagResub *prometheus.Desc
	framesOut                                          *prometheus.Desc
}

func newCollector(n *Node) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("volsched_node_"+name, help, labels, nil)
	}
	return &collector{n: n,
		msgsOut:       d("messages_sent_total", "Frames sent to other nodes."),
		bytesOut:      d("bytes_sent_total", "Bytes sent to other nodes."),
		msgsIn:        d("messages_received_total", "Frames received."),
		bytesIn:       d("bytes_received_total", "Bytes received."),
		framesOut:     d("frames_sent_total", "Frames sent, by type.", "type"),
		dropped:       d("frames_dropped_total", "Frames not sent (queue full or peer unreachable)."),
		refused:       d("connections_refused_total", "Connections refused (TLS or hello)."),
		invalid:       d("messages_invalid_total", "Messages dropped because they failed decoding or validation."),
		stale:         d("messages_stale_total", "Well-formed messages dropped because their sender does not hold the link they claim (in flight while the tree changes)."),
		routers:       d("routing_vertices", "Routing vertices this node plays."),
		depth:         d("subtree_height", "Height of the deepest leaf below each routing vertex.", "vertex"),
		subtreeLeaves: d("subtree_leaves", "Leaves below each routing vertex.", "vertex"),
		available:     d("branch_available_nodes", "Execution nodes the branch's summary covers.", "vertex"),
		claimed:       d("exec_claimed", "Tasks accepted, waiting for their assignment."),
		waiting:       d("exec_waiting", "Tasks assigned, waiting to run."),
		running:       d("exec_running", "Tasks running."),
		held:          d("exec_results_unacknowledged", "Results not yet acknowledged by their submission node."),
		tasksRun:      d("exec_tasks_run_total", "Tasks run to completion here."),
		bagTasks:      d("bag_tasks", "Tasks of each bag submitted here.", "bag"),
		bagDone:       d("bag_done", "Tasks done.", "bag"),
		bagFailed:     d("bag_failed", "Tasks failed for good.", "bag"),
		bagPending:    d("bag_pending", "Tasks waiting to be requested.", "bag"),
		bagResub:      d("bag_resubmitted_total", "Tasks resubmitted after a detection timeout.", "bag"),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.msgsOut, c.bytesOut, c.msgsIn, c.bytesIn, c.framesOut, c.dropped, c.refused,
		c.invalid, c.stale, c.routers, c.depth, c.subtreeLeaves, c.available, c.claimed, c.waiting, c.running, c.held, c.tasksRun,
		c.bagTasks, c.bagDone, c.bagFailed, c.bagPending, c.bagResub} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s, ok := c.n.Status()
	if !ok {
		return
	}
	counter := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, l...)
	}
	gauge := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	t := s.Traffic
	counter(c.msgsOut, float64(t.MsgsOut))
	counter(c.bytesOut, float64(t.BytesOut))
	counter(c.msgsIn, float64(t.MsgsIn))
	counter(c.bytesIn, float64(t.BytesIn))
	counter(c.dropped, float64(t.Dropped))
	counter(c.refused, float64(t.Refused))
	counter(c.invalid, float64(t.Invalid))
	counter(c.stale, float64(t.Stale))
	for k, v := range t.ByType {
		counter(c.framesOut, float64(v), k)
	}
	gauge(c.routers, float64(len(s.Routers)))
	for _, r := range s.Routers {
		v := r.View.Self.String()
		gauge(c.depth, float64(r.Subtree.MaxH), v)
		gauge(c.subtreeLeaves, float64(r.Subtree.Leaves), v)
		gauge(c.available, float64(r.Available), v)
	}
	gauge(c.claimed, float64(s.Exec.Claimed))
	gauge(c.waiting, float64(s.Exec.Waiting))
	gauge(c.running, float64(s.Exec.Running))
	gauge(c.held, float64(s.Exec.Held))
	counter(c.tasksRun, float64(s.Exec.TasksRun))
	for _, b := range s.Bags {
		id := strconv.FormatUint(b.ID, 10)
		gauge(c.bagTasks, float64(b.Tasks), id)
		gauge(c.bagDone, float64(b.Done), id)
		gauge(c.bagFailed, float64(b.Failed), id)
		gauge(c.bagPending, float64(b.Pending), id)
		counter(c.bagResub, float64(b.Resubmitted), id)
	}
}

// MetricsHandler serves the node's Prometheus metrics (and the Go
// runtime's).
func (n *Node) MetricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(n), prometheus.NewGoCollector())
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
