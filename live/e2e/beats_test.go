package e2e

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/volsched/volsched/live/master"
)

// metric reads an unlabelled sample of the master's registry.
func (c *cluster) metric(name string) float64 {
	mfs, err := c.srv.Registry().Gather()
	if err != nil {
		c.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.Metric) == 1 {
			m := mf.Metric[0]
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			}
		}
	}
	c.t.Fatalf("no metric %s", name)
	return 0
}

// waitMetric waits (at most limit) until cond holds for the metric.
func (c *cluster) waitMetric(name string, limit time.Duration, cond func(float64) bool) float64 {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		v := c.metric(name)
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s = %v after %v", name, v, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// beatMaster starts a master with one worker's token ("w") for the UDP
// tests: an application that does not end, heart-beats every 50 ms, DOWN
// after 2 s of silence.
func beatMaster(t *testing.T) (c *cluster, state, tok string) {
	app := writeExample(t, "hashchain", map[string]string{"hashchain.conf": "TASKS=2\nITERATIONS=100000\n"})
	state = filepath.Join(t.TempDir(), "state")
	toks := addTokens(t, state, "w")
	opt := masterOptions(loadApp(t, app), state)
	opt.Heartbeat, opt.DownAfter = 50*time.Millisecond, 2*time.Second
	return startMaster(t, opt), state, toks["w"]
}

// neverDown fails the test if the event log declares a worker DOWN.
func neverDown(t *testing.T, state string) {
	t.Helper()
	ev, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if bytes.Contains(ev, []byte(`"k":"`+master.LogDown+`"`)) {
		t.Error("the worker was declared DOWN")
	}
}

// TestHeartbeatsByUDP: a worker whose datagrams reach the master
// heart-beats by UDP (the master counts them; the worker's socket carries
// no more plain heart-beats); when they stop arriving (a UDP relay between
// them stops forwarding) the master sends the session back to the socket,
// before it would declare the worker DOWN: the heart-beats go on, by the
// socket, and the worker is never DOWN. Forged datagrams are refused.
func TestHeartbeatsByUDP(t *testing.T) {
	c, state, tok := beatMaster(t)

	// The relay: the worker's datagrams go to it, it forwards them to the
	// master's UDP port (the TCP port's number) while forward is true.
	relay, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	mAddr, err := net.ResolveUDPAddr("udp", c.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	out, err := net.DialUDP("udp", nil, mAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var forward atomic.Bool
	forward.Store(true)
	go func() {
		buf := make([]byte, 256)
		for {
			n, _, err := relay.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if forward.Load() {
				out.Write(buf[:n])
			}
		}
	}()
	wo := c.workerOptions("w", tok)
	wo.BeatAddr = relay.LocalAddr().String()
	c.addWorker(wo)

	// UDP mode: datagrams counted, and the socket's plain heart-beats stop
	// (all heart-beats minus the datagrams stay put while datagrams come).
	udp := c.waitMetric("volsched_udp_heartbeats_total", 30*time.Second, func(v float64) bool { return v >= 10 })
	bySocket := c.metric("volsched_heartbeats_total") - udp
	c.waitMetric("volsched_udp_heartbeats_total", 30*time.Second, func(v float64) bool { return v >= udp+20 })
	if now := c.metric("volsched_heartbeats_total") - c.metric("volsched_udp_heartbeats_total"); now > bySocket+2 {
		t.Errorf("in UDP mode the socket still carried %v plain heart-beats", now-bySocket)
	}

	// Forged datagrams: garbage, and a datagram-like one with a wrong key.
	refused := c.metric("volsched_udp_heartbeats_refused_total")
	out.Write([]byte("not a heart-beat"))
	forged := make([]byte, 38)
	copy(forged, "VSHB\x01\x01")
	out.Write(forged)
	c.waitMetric("volsched_udp_heartbeats_refused_total", 30*time.Second, func(v float64) bool { return v >= refused+2 })

	// The relay stops: back to the socket, heart-beats go on, no DOWN.
	forward.Store(false)
	c.waitMetric("volsched_udp_heartbeat_fallbacks_total", 30*time.Second, func(v float64) bool { return v >= 1 })
	udp = c.metric("volsched_udp_heartbeats_total")
	total := c.metric("volsched_heartbeats_total")
	c.waitMetric("volsched_heartbeats_total", 30*time.Second, func(v float64) bool { return v >= total+20 })
	if got := c.metric("volsched_udp_heartbeats_total"); got > udp+1 {
		t.Errorf("%v datagrams counted after the fallback", got-udp)
	}
	neverDown(t, state)
}

// TestHeartbeatsUDPBlocked: a worker whose datagrams never reach the
// master (sent to a port nobody reads, as behind a firewall dropping UDP)
// never leaves its socket: its heart-beats all arrive there, none by UDP,
// no fallback is needed and it is never DOWN.
func TestHeartbeatsUDPBlocked(t *testing.T) {
	c, state, tok := beatMaster(t)
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}) // bound, never read
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	wo := c.workerOptions("w", tok)
	wo.BeatAddr = sink.LocalAddr().String()
	c.addWorker(wo)
	c.waitMetric("volsched_heartbeats_total", 30*time.Second, func(v float64) bool { return v >= 40 })
	if udp, fb := c.metric("volsched_udp_heartbeats_total"), c.metric("volsched_udp_heartbeat_fallbacks_total"); udp != 0 || fb != 0 {
		t.Errorf("%v heart-beats by UDP, %v fallbacks: want none", udp, fb)
	}
	neverDown(t, state)
}
