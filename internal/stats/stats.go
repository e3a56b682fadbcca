// Package stats computes the mean and spread of a sample as the
// project's summaries print them: in two passes, summing in the sample's
// order, so that a summary computed from results ordered by unit gives the
// same digits whatever the number of workers or shards.
//
// Callers that compute a spread in one pass (sum and sum of squares) do
// not use it: the two forms round differently.
package stats

import "math"

// Moments are the size of a sample, its mean and the sum of the squared
// deviations from the mean.
type Moments struct {
	N    int
	Mean float64 // NaN for an empty sample
	SS   float64 // Σ (x − Mean)²
}

// Of computes the moments of xs: the mean is the sum of xs, in order,
// divided by its length; SS sums the squared deviations in order.
func Of(xs []float64) Moments {
	m := Moments{N: len(xs)}
	for _, x := range xs {
		m.Mean += x
	}
	m.Mean /= float64(len(xs))
	for _, x := range xs {
		m.SS += (x - m.Mean) * (x - m.Mean)
	}
	return m
}

// PopulationSD is the population standard deviation √(SS/N) (NaN for an
// empty sample).
func (m Moments) PopulationSD() float64 { return math.Sqrt(m.SS / float64(m.N)) }

// SampleSD is the sample standard deviation √(SS/(N−1)) (NaN for fewer
// than 2 values).
func (m Moments) SampleSD() float64 {
	if m.N < 2 {
		return math.NaN()
	}
	return math.Sqrt(m.SS / float64(m.N-1))
}

// SE is the standard error of the mean √(SS/(N−1)/N), 0 for fewer than 2
// values (one value says nothing of the spread; the figures draw no error
// bar).
func (m Moments) SE() float64 {
	if m.N < 2 {
		return 0
	}
	return math.Sqrt(m.SS / float64(m.N-1) / float64(m.N))
}
