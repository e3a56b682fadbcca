package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/iterative"
)

// benchMachine: p workers registered, UP, holding the program, idle; an
// iteration of tasks open tasks; estimated chains after a few slots.
func benchMachine(b *testing.B, h string, p, tasks, ncom int) *Machine {
	cfg := testConfig()
	cfg.Heuristic, cfg.NCom = heuristic(b, h), ncom
	m, err := NewMachine(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	m.NewIteration(0, 0, specs(0, tasks))
	for q := 0; q < p; q++ {
		m.Register(0, fmt.Sprintf("w%04d", q), []string{progDigest})
	}
	for k := int64(1); k <= 20; k++ {
		m.Tick(k * int64(cfg.Slot))
		for _, w := range m.workers {
			w.lastHeard = m.now
		}
	}
	m.TakeLog()
	return m
}

// decideOnce is Step's decision without its effects: the views of every
// worker, the heuristic on them.
func (m *Machine) decideOnce(stopAfter int) int {
	m.views = resizeViews(m.views, len(m.workers))
	m.watch = resizeBool(m.watch, len(m.workers))
	tdata := m.TData()
	acc := 0
	for q, w := range m.workers {
		m.views[q] = m.view(w, tdata)
		m.watch[q] = w.acceptor(m.now)
		if m.watch[q] {
			acc++
		}
	}
	m.picks = m.dec.decide(m.views, m.copies, tdata, m.watch, min(stopAfter, acc), m.picks)
	return len(m.picks)
}

// BenchmarkDecision: one decision of the master with 1,000 workers and
// 1,000 open tasks (goal ≤ 5 ms): the views of the workers and the
// heuristic, as Step makes it — stopping once the n_com = 10 free channels
// are given (as the slot simulator does) — and, for comparison, the full
// decision (every task placed).
// Every heuristic is measured as Step calls it; the full decision for four.
func BenchmarkDecision(b *testing.B) {
	for _, h := range iterative.Names(iterative.Paper()) {
		for _, full := range []bool{false, true} {
			if full && h != "EMCT*" && h != "EMCT" && h != "UD*" && h != "RANDOM2W" {
				continue
			}
			name := h + "/ncom-stop"
			stop := 10
			if full {
				name, stop = h+"/full", 0
			}
			b.Run(name, func(b *testing.B) {
				m := benchMachine(b, h, 1000, 1000, 10)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if n := m.decideOnce(stop); n == 0 {
						b.Fatal("no pick")
					}
				}
			})
		}
	}
}

// BenchmarkHeartbeat: the machine's cost of one heart-beat (no state
// change) among 10,000 workers.
func BenchmarkHeartbeat(b *testing.B) {
	m := benchMachine(b, "EMCT*", 10000, 10, 10)
	sessions := make([]uint64, 0, len(m.bySession))
	for s := range m.bySession {
		sessions = append(sessions, s)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Heartbeat(m.now, sessions[i%len(sessions)], availability.Up)
	}
}

// BenchmarkTick: one slot boundary with 10,000 workers (estimators fed,
// criteria refreshed every 16 slots or on a change).
func BenchmarkTick(b *testing.B) {
	m := benchMachine(b, "EMCT*", 10000, 10, 10)
	slot := int64(m.cfg.Slot)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now := m.now + slot
		for _, w := range m.workers {
			w.lastHeard = now
		}
		m.Tick(now)
	}
	_ = time.Second
}
