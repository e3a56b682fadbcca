package guard

import (
	"math/rand/v2"
	"slices"

	"github.com/volsched/volsched/coupled"
)

// Coupled is IE+IP, a heuristic of one's own for the tightly-coupled model
// (seeds 000/002), which no paper has: it builds the configurations IE and
// IP would build and keeps the one of larger apparent yield P/E (IAY's
// criterion), passively (a new one only when a member goes DOWN).
var Coupled = coupled.MustRegister(coupled.Heuristic{
	Name:        "IE+IP",
	Description: "builds IE's and IP's configurations and keeps the one of larger apparent yield P/E; kept until a member goes DOWN",
	Builder:     bestOfIEAndIP,
})

var ie, ip = mustParse("IE"), mustParse("IP")

func mustParse(name string) coupled.Heuristic {
	h, err := coupled.ParseHeuristic(name)
	if err != nil {
		panic(err)
	}
	return h
}

// bestOfIEAndIP is the building block: the evaluator builds both (its
// constructions are incremental, so a slot where little changed costs
// little) and values them by §V.
func bestOfIEAndIP(e *coupled.Evaluator, s *coupled.Snapshot, _ *rand.Rand) (coupled.Config, bool) {
	a, ok := e.Build(ie, nil, s, nil, coupled.Readings{})
	if !ok {
		return coupled.Config{}, false // IP cannot build one either: the UP workers cannot hold m tasks
	}
	a = coupled.Config{X: slices.Clone(a.X), Order: slices.Clone(a.Order)} // the evaluator's: copied before the next Build
	b, ok := e.Build(ip, nil, s, nil, coupled.Readings{})
	if !ok {
		return a, true
	}
	va, vb := e.Value(a, s, 0), e.Value(b, s, 0)
	if vb.P/vb.E > va.P/va.E {
		return b, true
	}
	return a, true
}
