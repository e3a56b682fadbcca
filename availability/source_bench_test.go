package availability_test

import (
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
	"github.com/volsched/volsched/stream"
	"github.com/volsched/volsched/trace"
)

// ucbSlots is the synthetic UCB trace (seed 003 Table 1: 80 hosts, 46
// days) cut into 60-second slots, unavailability DOWN.
func ucbSlots(b *testing.B) *availability.SlotTrace {
	p, err := trace.PresetByName("ucb")
	if err != nil {
		b.Fatal(err)
	}
	sl, err := trace.Generate(p, 1).States(availability.Down).Slots(60, availability.Down)
	if err != nil {
		b.Fatal(err)
	}
	return sl
}

// BenchmarkSourceNext measures one slot of one processor (ns/op = ns per
// slot) for each kind of source.
func BenchmarkSourceNext(b *testing.B) {
	sl := ucbSlots(b)
	// Slots per run of the UCB trace (the replay's cost depends on it).
	runs := 0
	for h := 0; h < sl.Hosts(); h++ {
		runs += len(sl.Runs(h))
	}
	b.Logf("UCB at 60 s: %d hosts × %d slots, %.0f slots per run", sl.Hosts(), sl.Len, float64(sl.Hosts()*sl.Len)/float64(runs))
	sources := []struct {
		name string
		src  func() availability.Source
	}{
		{"chain", func() availability.Source {
			return availability.NewChainSource(availability.Random(stream.New(1)), availability.StartStationary, stream.New(2))
		}},
		{"semimarkov-weibull", func() availability.Source {
			m := availability.SemiMarkov{Sojourn: [3]availability.Sojourn{sojourn.WeibullMean(0.5, 18), sojourn.WeibullMean(0.5, 18), sojourn.WeibullMean(0.5, 18)},
				Jump: [3][3]float64{{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}}}
			return m.NewSource(availability.StartStationary, stream.New(3))
		}},
		{"semimarkov-lognormal", func() availability.Source {
			m := availability.SemiMarkov{Sojourn: [3]availability.Sojourn{sojourn.LogNormalMean(1.5, 18), sojourn.LogNormalMean(1.5, 18), sojourn.LogNormalMean(1.5, 18)},
				Jump: [3][3]float64{{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}}}
			return m.NewSource(availability.StartStationary, stream.New(3))
		}},
		{"replay-ucb", func() availability.Source { return sl.Source(0, 12345) }},
	}
	for _, s := range sources {
		b.Run(s.name, func(b *testing.B) {
			src := s.src()
			var sink availability.State
			for b.Loop() {
				sink ^= src.Next()
			}
			_ = sink
		})
	}
}

// BenchmarkFill20 measures one slot of a 20-processor platform mixing the
// three kinds (ns/op = ns per slot of the platform).
func BenchmarkFill20(b *testing.B) {
	sl := ucbSlots(b)
	m := availability.SemiMarkov{Sojourn: [3]availability.Sojourn{sojourn.WeibullMean(0.5, 18), sojourn.LogNormalMean(1.5, 18), sojourn.ExponentialMean(18)},
		Jump: [3][3]float64{{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}}}
	srcs := make([]availability.Source, 20)
	for q := range srcs {
		switch q % 3 {
		case 0:
			srcs[q] = availability.NewChainSource(availability.Random(stream.New(1, uint64(q))), availability.StartStationary, stream.New(2, uint64(q)))
		case 1:
			srcs[q] = m.NewSource(availability.StartStationary, stream.New(3, uint64(q)))
		default:
			srcs[q] = sl.Source(q, 777)
		}
	}
	s := make([]availability.State, 20)
	for b.Loop() {
		availability.Fill(srcs, s)
	}
}

// BenchmarkViewObserve20 measures the estimator view's cost per slot of a
// 20-processor platform, re-estimating every slot.
func BenchmarkViewObserve20(b *testing.B) {
	for _, window := range []int{0, 1000} {
		b.Run(map[int]string{0: "all", 1000: "window1000"}[window], func(b *testing.B) {
			v, err := availability.NewView(20, availability.ViewConfig{Prior: availability.DefaultPrior(), Window: window})
			if err != nil {
				b.Fatal(err)
			}
			srcs := make([]availability.Source, 20)
			for q := range srcs {
				srcs[q] = availability.NewChainSource(availability.Random(stream.New(1, uint64(q))), availability.StartStationary, stream.New(2, uint64(q)))
			}
			s := make([]availability.State, 20)
			for b.Loop() {
				availability.Fill(srcs, s)
				v.Observe(s)
			}
		})
	}
}

// BenchmarkSlotsUCB measures cutting the synthetic UCB trace into 60-second
// slots.
func BenchmarkSlotsUCB(b *testing.B) {
	p, _ := trace.PresetByName("ucb")
	st := trace.Generate(p, 1).States(availability.Down)
	for b.Loop() {
		if _, err := st.Slots(60, availability.Down); err != nil {
			b.Fatal(err)
		}
	}
}
