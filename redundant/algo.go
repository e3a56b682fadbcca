package redundant

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/volsched/volsched/stream"
)

// Algorithms lists the names Allocate accepts. SAB is PPB run on the
// failure probabilities of Eq. 7 (see SABProbs); given probabilities it is
// PPB, so it is not listed here.
var Algorithms = []string{"ea", "ppb", "epb", "gls", "exact"}

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
