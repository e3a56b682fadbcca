package overlay

import (
	"fmt"
	"math"
)

// Distance selects the distance between sampled functions that the
// clustering of Fig. 3 minimizes. The paper defines it only as "a measure of
// the accuracy lost when they are summed up" (Definition 4), with an
// example for single-node IBP functions (|M1 − M2|/Δm + |D1 − D2|/Δd); it
// does not say how the number of nodes v or the spread of the nodes
// already inside a cluster enter. docs/overlay.md ("Distance") compares the
// two readings.
type Distance uint8

const (
	// DistMSE (the default) is the measure of the authors' simulator
	// (STaRS, ScalarParameter::norm and DPAvailabilityInformation::
	// MDFCluster::distance): per attribute, the mean over the nodes the sum
	// would cover of the squared deviation of each node's value from the
	// sum's value, divided by the squared range of the attribute in the
	// summary; summed over the attributes. Each sampled function carries the
	// first two moments of its nodes' deviations (Spread) to compute it.
	DistMSE Distance = iota
	// DistLoss is the availability the sum loses, v-weighted absolute
	// deviations normalized by the range (for single nodes, the paper's
	// example), with a grid penalty per differing attribute: this project's
	// first reading, kept for comparison.
	DistLoss
)

// distanceNames are the Distance values' names, in order.
var distanceNames = [...]string{DistMSE: "mse", DistLoss: "loss"}

func (d Distance) String() string {
	if int(d) < len(distanceNames) {
		return distanceNames[d]
	}
	return fmt.Sprintf("Distance(%d)", uint8(d))
}

// ParseDistance parses "mse" or "loss".
func ParseDistance(s string) (Distance, error) {
	for d, name := range distanceNames {
		if s == name {
			return Distance(d), nil
		}
	}
	return 0, fmt.Errorf("distance %q: want mse or loss", s)
}

// Spread summarizes how the nodes a sampled function covers deviate from
// its value in one attribute: Lin = Σ_u dev_u, Sq = Σ_u dev_u² and Far =
// max_u dev_u, with dev_u = |x_u − x| ≥ 0 (x is a minimum, or for a maximum
// attribute such as MMP's queue end, a maximum, so deviations have one
// sign). Lin and Sq give the DistMSE distance; Far gives the extreme node
// value under a summary (x + Far), whose range normalizes the distance and
// lays out the grid, as the authors' summaries kept the nodes' range.
// A single node has a zero Spread. The sum of two functions combines them
// exactly (spreadSum), whatever the order of the merges. Stored in 32 bits
// like the other attributes; it only steers the clustering.
type Spread struct{ Lin, Sq, Far float32 }

// CombineSpreads returns the spread of the sum of two functions of va and
// vb nodes whose values deviate by da, db >= 0 from the sum's value (the
// sum's spread is exact whatever the order of the merges; see Spread).
func CombineSpreads(a Spread, va, da float64, b Spread, vb, db float64) Spread {
	return spreadSum(a, va, da, b, vb, db)
}

// CombinedSq is the Sq of CombineSpreads before it is stored in 32 bits:
// Σ of the squared deviations of the sum's nodes (what DistMSE divides by
// the number of nodes and the squared range).
func CombinedSq(a Spread, va, da float64, b Spread, vb, db float64) float64 {
	_, sq := spreadLinSq(a, va, da, b, vb, db)
	return sq
}

// spreadSum returns the spread of the sum of two functions of va and vb
// nodes whose values deviate by da, db ≥ 0 from the sum's value:
// Σ(dev + d)² = Σdev² + 2dΣdev + v·d² for each side.
func spreadSum(a Spread, va, da float64, b Spread, vb, db float64) Spread {
	lin, sq := spreadLinSq(a, va, da, b, vb, db)
	return toSpread(lin, sq, max(float64(a.Far)+da, float64(b.Far)+db))
}

// spreadLinSq is the Lin and Sq of spreadSum in float64. The two sides are
// added last, so the result does not depend on the order of the arguments.
func spreadLinSq(a Spread, va, da float64, b Spread, vb, db float64) (lin, sq float64) {
	la, sa := spreadSide(float64(a.Lin), float64(a.Sq), va, da)
	lb, sb := spreadSide(float64(b.Lin), float64(b.Sq), vb, db)
	return la + lb, sa + sb
}

// spreadSide is one side of spreadSum: v nodes whose deviations (Σ lin,
// Σ² sq) all grow by d.
func spreadSide(lin, sq, v, d float64) (float64, float64) {
	return lin + v*d, sq + d*(v*d+2*lin)
}

func (s Spread) zero() bool { return s == Spread{} }

// toSpread stores a spread in 32 bits (Far rounded up: the range it gives
// must cover the nodes).
func toSpread(lin, sq, far float64) Spread {
	f := float32(far)
	if float64(f) < far {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return Spread{float32(lin), float32(sq), f}
}

// gridBase is the number of grid intervals per attribute: the d-th root of
// SF_max rounded down, as the authors' setNumClusters did (floor(sqrt(c)),
// floor(cbrt(c)), floor(sqrt(sqrt(c)))) for DistMSE; rounded to the nearest
// integer for DistLoss (this project's first version). The two agree on the
// paper's values (9, 64, 225; 16, 81, 256; 8, 64, 216).
func gridBase(sfmax, d int, dist Distance) int {
	r := math.Pow(float64(sfmax), 1/float64(d))
	if dist == DistLoss {
		return int(math.Round(r))
	}
	return int(math.Floor(r + 1e-9))
}

// msePenalty is added once to the DistMSE distance of two sampled functions
// in different grid cells. Within a cell the distance is at most about the
// number of attributes (each normalized squared deviation is at most 1), so
// every pair inside a cell is closer than any pair across cells, as when
// the authors' clustering skipped "far" pairs; across cells the plain
// distance orders the pairs.
const msePenalty = 1e6
