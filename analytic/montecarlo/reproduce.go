package montecarlo

import (
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/volsched/volsched/analytic"
	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// Expect says what a row of the reproduction should show.
type Expect int

const (
	// Holds: the formula is exact; it should stay within a few standard
	// errors of the simulation.
	Holds Expect = iota
	// Approximation: the paper's approximation; it may be off.
	Approximation
	// AsPrinted: the form printed in the paper, which is not what its
	// definition asks for (docs/analytic.md); it is expected to be off.
	AsPrinted
)

func (e Expect) String() string {
	switch e {
	case Holds:
		return "holds"
	case Approximation:
		return "approximation"
	case AsPrinted:
		return "as printed"
	}
	return fmt.Sprintf("Expect(%d)", int(e))
}

// Row is one line of the reproduction: a quantity of one chain or of a set
// of chains, the formula's value and the Monte Carlo estimate with its
// standard error.
type Row struct {
	Subject    string // "#1" (a chain) or "S=#1..#3" (the set of chains #1 to #3)
	Quantity   string // e.g. "P+ (Lemma 1)"
	Formula    float64
	Simulation float64
	SE         float64 // standard error of Simulation
	Expect     Expect
}

// Z is the distance between the formula and the simulation in standard
// errors.
func (r Row) Z() float64 { return math.Abs(r.Formula-r.Simulation) / r.SE }

// ZLimit is the distance in standard errors below which a formula is said
// to hold.
const ZLimit = 4

// Reproduction is the Monte Carlo check of the analytic results of
// Casanova et al. (seed 001: Lemma 1, Theorem 2, P_UD(k)) and of the
// tightly-coupled model (seed 002: Theorem 5.1) over chains from the
// papers' generator.
type Reproduction struct {
	Seed   uint64
	Chains int // chains drawn from the generator
	Runs   int // Monte Carlo runs per row
	W, K   int // slots of work of E(W) and E(S)(W); k of P_UD(k)
	// Single are the rows of each chain alone, Sets those of the sets of
	// the first 2, 3 and 4 chains.
	Single, Sets []Row
}

// Reproduce runs the check with seed; quick runs 4 chains with 20,000
// runs per row instead of 8 with 100,000.
func Reproduce(ctx context.Context, seed uint64, quick bool) (*Reproduction, error) {
	r := &Reproduction{Seed: seed, Chains: 8, Runs: 100000, W: 10, K: 20}
	if quick {
		r.Chains, r.Runs = 4, 20000
	}
	W, K, runs := r.W, r.K, r.Runs
	rng := stream.New(seed, 0xa11a)
	var sets []availability.Chain
	for i := 0; i < r.Chains; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := availability.Random(rng)
		sets = append(sets, c)
		name := fmt.Sprintf("#%d", i+1)
		row := func(q string, f, sim, se float64, e Expect) {
			r.Single = append(r.Single, Row{Subject: name, Quantity: q, Formula: f, Simulation: sim, SE: se, Expect: e})
		}
		mc := Simulate([]availability.Chain{c}, 2, runs, rng)
		row("P+ (Lemma 1)", analytic.PPlus(c), mc.P(), mc.PSE(), Holds)
		mc = Simulate([]availability.Chain{c}, W, runs, rng)
		row("E(W) (Theorem 2)", analytic.ExpectedTime(c, float64(W)), mc.Mean, mc.MeanSE, Holds)
		p, se := NotDown(c, K, runs, rng)
		row("P_UD(k) exact", analytic.PUDExact(c, K), p, se, Holds)
		row("P_UD(k) approx", analytic.PUDApprox(c, float64(K)), p, se, Approximation)
		row("P_UD(k) as printed", analytic.PUDPublishedMatrix(c, K), p, se, AsPrinted)
	}
	for _, size := range []int{2, 3, 4} {
		if size > len(sets) {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chains := sets[:size]
		tab, err := analytic.NewTable(chains, analytic.Options{})
		if err != nil {
			return nil, err
		}
		all := make([]int, size)
		for i := range all {
			all[i] = i
		}
		st := tab.SetOf(all...).Stats()
		name := fmt.Sprintf("S=#1..#%d", size)
		row := func(q string, f, sim, se float64, e Expect) {
			r.Sets = append(r.Sets, Row{Subject: name, Quantity: q, Formula: f, Simulation: sim, SE: se, Expect: e})
		}
		mc := Simulate(chains, 2, runs, rng)
		row("P+(S) (Thm 5.1)", st.PPlus, mc.P(), mc.PSE(), Holds)
		mc = Simulate(chains, W, runs, rng)
		row("P+(S)^(W-1)", st.PSuccess(float64(W)), mc.P(), mc.PSE(), Holds)
		row("E(S)(W) conditional", st.ExpectedTime(float64(W), analytic.Conditional), mc.Mean, mc.MeanSE, Holds)
		row("E(S)(W) as printed", st.ExpectedTime(float64(W), analytic.Published), mc.Mean, mc.MeanSE, AsPrinted)
	}
	return r, nil
}

// WriteText writes the reproduction as `volsched reproduce` prints it: the
// setting, the table and what to expect.
func (r *Reproduction) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "seed %d; chains from the papers' generator (P_xx ~ U[0.90,0.99], P_xy = (1-P_xx)/2); %d Monte Carlo runs per cell; W = %d, k = %d\n",
		r.Seed, r.Runs, r.W, r.K)
	fmt.Fprintf(w, "z = |formula - simulation| / standard error; a formula that holds stays below %d\n\n", ZLimit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chain\tquantity\tformula\tsimulation\tstd err\tz\t")
	row := func(x Row) {
		fmt.Fprintf(tw, "%s\t%s\t%.5f\t%.5f\t%.5f\t%.1f\t\n", x.Subject, x.Quantity, x.Formula, x.Simulation, x.SE, x.Z())
	}
	for _, x := range r.Single {
		row(x)
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t")
	for _, x := range r.Sets {
		row(x)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nExpected: every formula below z = 4 except the two printed forms (the P_UD matrix with its vectors swapped, and\nTheorem 5.1's E(S)(W), which divides by P+^(W-1) instead of conditioning each gap); P_UD approx is an approximation.\n")
	return err
}
