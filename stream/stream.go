// Package stream derives independent, reproducible random-number streams.
//
// Every random draw in volsched comes from a stream named by a campaign seed
// and a list of labels (scenario, trial, purpose, ...). The same labels give
// the same stream whatever the number of goroutines or the order in which
// work is done, which is what makes campaign results bit-identical across
// worker counts and shards.
package stream

import "math/rand/v2"

// splitmix64 is the finalizer of the SplitMix64 generator: a bijective
// avalanche mix of 64 bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Key folds a seed and labels into two 64-bit words suitable as a PCG seed.
// Label order matters: Key(s, 1, 2) differs from Key(s, 2, 1).
func Key(seed uint64, labels ...uint64) (uint64, uint64) {
	hi := splitmix64(seed ^ 0x5851f42d4c957f2d)
	lo := splitmix64(seed + 0x14057b7ef767814f)
	for _, l := range labels {
		hi = splitmix64(hi ^ splitmix64(l))
		lo = splitmix64(lo + splitmix64(l^0xd1b54a32d192ed03))
	}
	return hi, lo
}

// New returns a PCG-backed generator for the stream (seed, labels...).
func New(seed uint64, labels ...uint64) *rand.Rand {
	return rand.New(NewPCG(seed, labels...))
}

// NewPCG returns the PCG source of the stream (seed, labels...): rand.New
// of it draws what New(seed, labels...) draws, and its state can be saved
// (MarshalBinary).
func NewPCG(seed uint64, labels ...uint64) *rand.PCG {
	hi, lo := Key(seed, labels...)
	return rand.NewPCG(hi, lo)
}

// Reset re-seeds an existing PCG source to the stream (seed, labels...),
// avoiding an allocation in loops that draw many short streams.
func Reset(src *rand.PCG, seed uint64, labels ...uint64) {
	hi, lo := Key(seed, labels...)
	src.Seed(hi, lo)
}
