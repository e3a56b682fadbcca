package des

import (
	"fmt"
	"math"

	"github.com/volsched/volsched/stream"
)

// Link is the end-to-end link model of seed 004 §7.2: every pair of nodes
// communicates directly through a link of the same bandwidth, with a
// propagation delay that follows a bounded Pareto distribution on
// [DelayMin, DelayMax].
//
// The paper does not give the Pareto shape; ParetoShape is ours (1 by
// default, which puts the median of the slow link at 86 ms and its mean at
// 107 ms). The delay of a pair of nodes is drawn once per unordered pair
// (a hash of the run seed and the two node indices) and kept for the whole
// run, so messages between two nodes arrive in the order they were sent,
// as over one TCP connection; drawing a delay per message would reorder
// them.
type Link struct {
	Name         string  `json:"name"`
	BandwidthBps float64 `json:"bandwidth_bps"` // bits per second
	DelayMin     Time    `json:"delay_min_ns"`
	DelayMax     Time    `json:"delay_max_ns"`
	ParetoShape  float64 `json:"pareto_shape"`
}

// SlowLink is the volunteer-computing link of §7.2: 10 Mbps, 50–300 ms.
var SlowLink = Link{Name: "slow", BandwidthBps: 10e6, DelayMin: 50 * Millisecond, DelayMax: 300 * Millisecond, ParetoShape: 1}

// FastLink is the cluster interconnect of §7.2: 1 Gbps, 0.1–1 ms.
var FastLink = Link{Name: "fast", BandwidthBps: 1e9, DelayMin: 100 * Microsecond, DelayMax: Millisecond, ParetoShape: 1}

// LinkByName returns SlowLink or FastLink.
func LinkByName(name string) (Link, error) {
	switch name {
	case "slow":
		return SlowLink, nil
	case "fast":
		return FastLink, nil
	}
	return Link{}, fmt.Errorf("link %q: want slow or fast", name)
}

// Validate checks the link parameters.
func (l Link) Validate() error {
	switch {
	case !(l.BandwidthBps > 0) || math.IsInf(l.BandwidthBps, 0):
		return fmt.Errorf("link %q: bandwidth %g bit/s: want a finite value > 0", l.Name, l.BandwidthBps)
	case l.DelayMin <= 0:
		return fmt.Errorf("link %q: minimum delay %v: want > 0", l.Name, l.DelayMin)
	case l.DelayMax < l.DelayMin:
		return fmt.Errorf("link %q: maximum delay %v: want >= minimum delay %v", l.Name, l.DelayMax, l.DelayMin)
	case !(l.ParetoShape > 0) || math.IsInf(l.ParetoShape, 0):
		return fmt.Errorf("link %q: Pareto shape %g: want a finite value > 0", l.Name, l.ParetoShape)
	}
	return nil
}

// DelayQuantile is the inverse CDF of the bounded Pareto delay at u in
// [0, 1): L / (1 − u·(1 − (L/H)^α))^(1/α).
func (l Link) DelayQuantile(u float64) Time {
	if l.DelayMax == l.DelayMin {
		return l.DelayMin
	}
	L, H := float64(l.DelayMin), float64(l.DelayMax)
	a := l.ParetoShape
	x := L / math.Pow(1-u*(1-math.Pow(L/H, a)), 1/a)
	if x > H {
		x = H
	}
	return Time(math.Round(x))
}

// TransmitTime is the time to put a message of the given size on the link.
func (l Link) TransmitTime(bytes int) Time {
	return Time(math.Ceil(float64(bytes) * 8 / l.BandwidthBps * 1e9))
}

// Processing is the per-message processing-time model. The paper used the
// CPU time its simulator really spent on each message, which makes runs
// irreproducible; we model it instead: handling a message costs PerMessage
// plus PerByte for each byte of it (the driver may add policy-specific
// costs through Network.Process). Per node, messages are handled one at a
// time in arrival order.
type Processing struct {
	PerMessage Time `json:"per_message_ns"`
	PerByte    Time `json:"per_byte_ns"`
}

// DefaultProcessing is our default cost: 20 µs per message plus 2 ns per
// byte, the order of magnitude of a Go handler that decodes and aggregates
// a summary of a few kilobytes on the development machine. It is a model
// parameter, not a measurement of each run.
var DefaultProcessing = Processing{PerMessage: 20 * Microsecond, PerByte: 2}

// Validate checks the processing model.
func (p Processing) Validate() error {
	if p.PerMessage < 0 {
		return fmt.Errorf("processing: per-message time %v: want >= 0", p.PerMessage)
	}
	if p.PerByte < 0 {
		return fmt.Errorf("processing: per-byte time %v: want >= 0", p.PerByte)
	}
	return nil
}

// Cost is the processing time of a message of the given size.
func (p Processing) Cost(bytes int) Time { return p.PerMessage + Time(bytes)*p.PerByte }

// windowUse is one node's traffic in the current window of one sampling
// interval (Table 4 of seed 004 uses 1 s and 10 s plus the whole run).
type windowUse struct {
	idx int32 // index of the current window, -1 before any traffic
	out uint32
	in  uint32
}

// Network is the state of every node's link and message processor: the
// time its outgoing link is free, the time its processor is free, and its
// traffic counters. It costs 32 bytes per node plus 12 per node and
// sampling window. Node indices are int32 in [0, n).
type Network struct {
	Link  Link
	Proc  Processing
	seed  uint64
	n     int
	free  []Time // outgoing link free at
	cpu   []Time // processor free at
	total []uint64
	// traffic windows
	windows []Time
	use     [][]windowUse // [window][node]
	maxUse  []uint64      // [window] max bytes in one direction in one window at one node
	maxNode []int32
	sent    uint64
	bytes   uint64
}

// NewNetwork returns the network of n nodes. windows are the sampling
// intervals of the link-use statistics (each > 0). seed fixes the pair
// delays.
func NewNetwork(n int, link Link, proc Processing, seed uint64, windows ...Time) (*Network, error) {
	if n < 1 || n > math.MaxInt32 {
		return nil, fmt.Errorf("network size %d: want 1..%d", n, math.MaxInt32)
	}
	if err := link.Validate(); err != nil {
		return nil, err
	}
	if err := proc.Validate(); err != nil {
		return nil, err
	}
	nw := &Network{Link: link, Proc: proc, seed: seed, n: n,
		free: make([]Time, n), cpu: make([]Time, n), total: make([]uint64, 2*n),
		windows: append([]Time(nil), windows...),
		maxUse:  make([]uint64, len(windows)), maxNode: make([]int32, len(windows))}
	for i, w := range windows {
		if w <= 0 {
			return nil, fmt.Errorf("sampling window %d: %v: want > 0", i, w)
		}
		u := make([]windowUse, n)
		for j := range u {
			u[j].idx = -1
		}
		nw.use = append(nw.use, u)
	}
	return nw, nil
}

// Size is the number of nodes.
func (nw *Network) Size() int { return nw.n }

// Delay is the propagation delay between nodes a and b (symmetric, fixed
// for the run).
func (nw *Network) Delay(a, b int32) Time {
	if a > b {
		a, b = b, a
	}
	hi, _ := stream.Key(nw.seed, 0x6c696e6b, uint64(a), uint64(b))
	u := float64(hi>>11) * 0x1p-53
	return nw.Link.DelayQuantile(u)
}

// Process reserves node's processor for a message that arrives at time at
// and costs cost to handle; it returns the time handling ends, when the
// messages the node sends in reaction may leave. The node's state changes
// at arrival (the driver applies the message when its event fires); only
// its reactions wait for the processor.
func (nw *Network) Process(at Time, node int32, cost Time) Time {
	start := at
	if f := nw.cpu[node]; f > start {
		start = f
	}
	done := start + cost
	nw.cpu[node] = done
	return done
}

// Send transmits a message of the given size from src to dst, leaving no
// earlier than depart; it returns the time it arrives at dst. Messages from
// one node leave one after the other (the outgoing link is a FIFO), each
// taking size·8/bandwidth, then travel for the pair's delay.
func (nw *Network) Send(depart Time, src, dst int32, bytes int) Time {
	start := depart
	if f := nw.free[src]; f > start {
		start = f
	}
	tx := nw.Link.TransmitTime(bytes)
	nw.free[src] = start + tx
	arrive := start + tx + nw.Delay(src, dst)
	nw.account(start, src, dst, arrive, bytes)
	return arrive
}

// account adds a message to the traffic counters.
func (nw *Network) account(start Time, src, dst int32, arrive Time, bytes int) {
	nw.sent++
	nw.bytes += uint64(bytes)
	nw.total[2*int(src)] += uint64(bytes)
	nw.total[2*int(dst)+1] += uint64(bytes)
	b := uint32(bytes)
	for w, width := range nw.windows {
		u := nw.use[w]
		// sender: window of departure
		i := int32(start / width)
		s := &u[src]
		if s.idx != i {
			s.idx, s.out, s.in = i, 0, 0
		}
		s.out += b
		if uint64(s.out) > nw.maxUse[w] {
			nw.maxUse[w], nw.maxNode[w] = uint64(s.out), src
		}
		// receiver: window of arrival
		j := int32(arrive / width)
		d := &u[dst]
		if d.idx != j {
			if d.idx > j {
				// an earlier-arriving message counted after a later one
				// (different senders): count it in the later window, a
				// small overestimate of that window.
				j = d.idx
			} else {
				d.idx, d.out, d.in = j, 0, 0
			}
		}
		d.in += b
		if uint64(d.in) > nw.maxUse[w] {
			nw.maxUse[w], nw.maxNode[w] = uint64(d.in), dst
		}
	}
}

// Messages is the number of messages sent and Bytes their total size.
func (nw *Network) Messages() uint64 { return nw.sent }

// Bytes is the total size of the messages sent.
func (nw *Network) Bytes() uint64 { return nw.bytes }

// LinkUse is a peak of link use.
type LinkUse struct {
	Window   Time    `json:"window_ns"` // sampling interval; 0 for the whole run
	Bytes    uint64  `json:"bytes"`     // bytes in one direction of the busiest node in the busiest window
	Node     int32   `json:"node"`
	Fraction float64 `json:"fraction"` // of the link's capacity in that window
}

// PeakUse returns, for each sampling window, the maximum over nodes and
// windows of the bytes sent or received by one node in one window (each
// direction separately, the link being full duplex), and as a last entry
// the maximum average use over the whole run of length runLength.
func (nw *Network) PeakUse(runLength Time) []LinkUse {
	out := make([]LinkUse, 0, len(nw.windows)+1)
	for w, width := range nw.windows {
		out = append(out, LinkUse{Window: width, Bytes: nw.maxUse[w], Node: nw.maxNode[w],
			Fraction: float64(nw.maxUse[w]) * 8 / (nw.Link.BandwidthBps * width.Seconds())})
	}
	var best uint64
	var node int32
	for i, v := range nw.total {
		if v > best {
			best, node = v, int32(i/2)
		}
	}
	f := 0.0
	if runLength > 0 {
		f = float64(best) * 8 / (nw.Link.BandwidthBps * runLength.Seconds())
	}
	out = append(out, LinkUse{Window: 0, Bytes: best, Node: node, Fraction: f})
	return out
}

// Fail resets a node's link and processor, as when a failed node is
// replaced by a new one: its queued reactions are lost with it.
func (nw *Network) Fail(node int32, now Time) {
	nw.free[node] = now
	nw.cpu[node] = now
}
