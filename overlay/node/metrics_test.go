package node

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMetrics scrapes a submission node's Prometheus handler once its bag
// is done: the bag's series carry its id and its counts.
func TestMetrics(t *testing.T) {
	var runs atomic.Int64
	cl := newCluster(t, 2, false, func(i int, c *Config) {
		c.Runner = sleepRunner{d: 10 * time.Millisecond, runs: &runs}
	})
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	bags := cl.submitBags([]int{0}, 3, 10)
	cl.waitBags(bags, 20*time.Second)
	rec := httptest.NewRecorder()
	cl.nodes[0].MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		fmt.Sprintf("volsched_node_bag_tasks{bag=\"%d\"} 3\n", bags[0].bag),
		fmt.Sprintf("volsched_node_bag_done{bag=\"%d\"} 3\n", bags[0].bag),
		"volsched_node_routing_vertices ",
		"go_goroutines ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics: no %q in\n%s", want, body)
		}
	}
}
