package main

import (
	"context"
	"io"

	"github.com/volsched/volsched/analytic/montecarlo"
	"github.com/volsched/volsched/reproduction"
)

func init() {
	registerReproduction(reproduction.Reproduction{
		Name:  "analytic",
		Order: 10,
		Title: "seeds 001/002 analytic results against Monte Carlo simulation of the Markov chain",
		Run:   reproduceAnalytic,
	})
}

// reproduceAnalytic prints each formula next to a Monte Carlo estimate over
// chains from the papers' generator, with the distance in standard errors
// (analytic/montecarlo), and returns the same rows as the report's section.
// The published forms that are not what their definitions ask for are
// printed too, so that the gap is visible (docs/analytic.md).
func reproduceAnalytic(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
	r, err := montecarlo.Reproduce(ctx, opt.Seed, opt.Quick)
	if err != nil {
		return nil, err
	}
	if err := r.WriteText(w); err != nil {
		return nil, err
	}
	return r.Section(), nil
}
