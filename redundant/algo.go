package redundant

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/volsched/volsched/stream"
)

// Algorithms lists the names Allocate accepts. SAB is PPB run on the
// failure probabilities of Eq. 7 (see SABProbs); given probabilities it is
// PPB, so it is not listed here.
var Algorithms = []string{"ea", "ppb", "epb", "gls", "exact"}

// SAB is the name of the paper's SAB algorithm (§4.1): PPB run on the
// failure probabilities of Eq. 7, which come from the hosts' ages
// (SABProbs). It needs ages, so it runs where they are known: Figure 4's
// trace study, and `volsched alloc` with ages in its input; Allocate does
// not take it (Allocator gives the algorithm to run).
const SAB = "sab"

// algorithmNames are the names ParseAlgorithm accepts, in the paper's
// order, then this project's.
var algorithmNames = []string{"ea", "ppb", "epb", SAB, "gls", "exact"}

// ParseAlgorithm parses the name of an algorithm as the paper writes it
// (EA, PPB, EPB, SAB) or as this project names its own (GLS, exact), in
// any case, and returns it in lower case, as Allocate, LabConfig and the
// figures' series take it.
func ParseAlgorithm(s string) (string, error) {
	a := strings.ToLower(strings.TrimSpace(s))
	if !slices.Contains(algorithmNames, a) {
		return "", fmt.Errorf("algorithm %q, want one of %s", s, strings.Join(algorithmNames, ", "))
	}
	return a, nil
}

// Allocator is the algorithm of Allocate that algo (a name ParseAlgorithm
// returns) runs: PPB for SAB, on SAB's probabilities; algo itself
// otherwise.
func Allocator(algo string) string {
	if algo == SAB {
		return "ppb"
	}
	return algo
}

// Options configures Allocate.
type Options struct {
	Seed   uint64        // seed of the annealing stream (PPB, EPB)
	Anneal AnnealOptions // PPB, EPB
	Exact  ExactOptions  // exact
	// Progress, if not nil, is told now and then how far a long run is:
	// done of total steps of its current phase (annealing moves, hosts
	// placed by GLS's construction, exact search nodes out of MaxNodes,
	// total 0 when unbounded).
	Progress func(phase string, done, total int64)
}

// Result is an allocation with its R_sys.
type Result struct {
	Algo    string
	X       []int
	Rsys    float64
	LogRsys float64
	Optimal bool // exact only: proven optimal
}

// Allocate runs the named algorithm on failure probabilities p for n tasks.
// The annealing stream is stream.New(opt.Seed, labels...) with the labels
// given (callers add trial numbers); the same inputs give the same
// allocation. A cancelled ctx stops every algorithm within milliseconds
// with ctx's error.
func Allocate(ctx context.Context, algo string, p []float64, n int, opt Options, labels ...uint64) (Result, error) {
	if err := ValidateInstance(p, n, "instance"); err != nil {
		return Result{}, err
	}
	if opt.Anneal.MovesPerHost < 0 || opt.Anneal.MovesPerHost > MaxMovesPerHost {
		return Result{}, fmt.Errorf("moves per host = %d, want 0 (the default) to %d", opt.Anneal.MovesPerHost, MaxMovesPerHost)
	}
	var x []int
	var err error
	optimal := false
	switch strings.ToLower(algo) {
	case "ea":
		x = EA(len(p), n)
	case "ppb":
		x, err = anneal(ctx, p, n, EA(len(p), n), false, annealStream(opt.Seed, labels, 1), opt.Anneal, opt.Progress)
	case "epb":
		x, err = anneal(ctx, p, n, EA(len(p), n), true, annealStream(opt.Seed, labels, 2), opt.Anneal, opt.Progress)
	case "gls":
		x, err = gls(ctx, p, n, opt.Progress)
	case "exact":
		var r ExactResult
		r, err = exact(ctx, p, n, opt.Exact, opt.Progress)
		x, optimal = r.X, r.Optimal
	default:
		return Result{}, fmt.Errorf("algo = %q, want one of %s", algo, strings.Join(Algorithms, ", "))
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Algo: strings.ToLower(algo), X: x, Rsys: Rsys(p, x, n), LogRsys: LogRsys(p, x, n), Optimal: optimal}, nil
}

func annealStream(seed uint64, labels []uint64, purpose uint64) *rand.Rand {
	l := append(append([]uint64{0x3003}, labels...), purpose)
	return stream.New(seed, l...)
}
