package cli

import (
	"github.com/volsched/volsched/iterative"
)

// heuristicFlag is a flag naming a heuristic of the iterative model: the
// name is looked up once, when the flag is parsed (an unknown name is a
// usage error naming the flag), and the command passes the value on.
type heuristicFlag struct{ h *iterative.Heuristic }

func (f heuristicFlag) String() string {
	if f.h == nil || !f.h.Valid() {
		return ""
	}
	return f.h.String()
}

func (f heuristicFlag) Set(name string) error {
	h, err := iterative.ParseHeuristic(name)
	if err != nil {
		return err
	}
	*f.h = h
	return nil
}

func (f heuristicFlag) Type() string { return "heuristic" }
