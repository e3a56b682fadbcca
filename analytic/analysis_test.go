package analytic

import (
	"math"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/stream"
)

// exactSet computes, by propagating the joint distribution of the
// processors' states (no formula from the papers involved), the probability
// that W all-UP slots are reached before any DOWN and the expected
// completion time conditioned on that, for processors all UP at slot 0.
func exactSet(chains []availability.Chain, W int) (pSucc, eCond float64) {
	if W <= 1 {
		return 1, 1
	}
	n := len(chains)
	nv := 1 << n // bit i set: processor i RECLAIMED, clear: UP
	// mass[k][v]: probability of having seen k all-UP slots (1..W-1) and being in v.
	mass := make([][]float64, W)
	for k := range mass {
		mass[k] = make([]float64, nv)
	}
	mass[1][0] = 1
	trans := make([][]float64, nv) // trans[v][v'] without DOWN
	for v := 0; v < nv; v++ {
		trans[v] = make([]float64, nv)
		for v2 := 0; v2 < nv; v2++ {
			p := 1.0
			for i, c := range chains {
				from, to := (v>>i)&1, (v2>>i)&1
				p *= c.P[from][to]
			}
			trans[v][v2] = p
		}
	}
	var sumT float64
	for t := 1; t < 10000000; t++ {
		next := make([][]float64, W)
		left := 0.0
		for k := range next {
			next[k] = make([]float64, nv)
		}
		for k := 1; k < W; k++ {
			for v, m := range mass[k] {
				if m == 0 {
					continue
				}
				for v2, p := range trans[v] {
					x := m * p
					if v2 == 0 {
						if k+1 == W {
							pSucc += x
							sumT += x * float64(t+1)
							continue
						}
						next[k+1][v2] += x
					} else {
						next[k][v2] += x
					}
					left += x
				}
			}
		}
		mass = next
		if left < 1e-14 {
			break
		}
	}
	return pSucc, sumT / pSucc
}

func exactNotDown(c availability.Chain, k int) float64 {
	x, y := 1.0, 0.0
	for s := 1; s < k; s++ {
		x, y = x*c.P[0][0]+y*c.P[1][0], x*c.P[0][1]+y*c.P[1][1]
	}
	return x + y
}

func exactStationary(c availability.Chain) [3]float64 {
	v := [3]float64{1, 0, 0}
	for s := 0; s < 200000; s++ {
		var w [3]float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				w[j] += v[i] * c.P[i][j]
			}
		}
		v = w
	}
	return v
}

func relClose(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(math.Abs(want), 1e-12) {
		t.Errorf("%s = %.10g, exact %.10g (relative error %.2g)", what, got, want, math.Abs(got-want)/math.Abs(want))
	}
}

// TestAnalyzeChainAgainstExactComputation: the analysis of one chain
// agrees with a computation that uses none of the papers' formulas.
func TestAnalyzeChainAgainstExactComputation(t *testing.T) {
	rng := stream.New(99)
	for i := 0; i < 3; i++ {
		c := availability.Random(rng)
		for _, W := range []int{1, 2, 7} {
			got := AnalyzeChain(c, W)
			if got.Work != W {
				t.Errorf("work = %d, want %d", got.Work, W)
			}
			pi := exactStationary(c)
			relClose(t, "stationary up", float64(got.Stationary.Up), pi[0])
			relClose(t, "stationary reclaimed", float64(got.Stationary.Reclaimed), pi[1])
			relClose(t, "stationary down", float64(got.Stationary.Down), pi[2])
			pPlus, _ := exactSet([]availability.Chain{c}, 2)
			relClose(t, "p_plus", float64(got.PPlus), pPlus)
			_, e := exactSet([]availability.Chain{c}, W)
			relClose(t, "expected_time", float64(got.ExpectedTime), e)
			relClose(t, "p_ud_exact", float64(got.PUDExact), exactNotDown(c, W))
			if got.PUDApprox <= 0 || got.PUDApprox > 1 {
				t.Errorf("p_ud_approx = %g", got.PUDApprox)
			}
		}
	}
}

// TestAnalyzeSetAgainstExactComputation: the analysis of a set agrees with
// the exact computation, the published E(S)(W) and E_comm with their
// forms recomputed from exact quantities.
func TestAnalyzeSetAgainstExactComputation(t *testing.T) {
	rng := stream.New(98)
	chains := []availability.Chain{availability.Random(rng), availability.Random(rng), availability.Random(rng)}
	const W = 6
	got, err := AnalyzeSet(chains, W, 1e-9, 2, []float64{5, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if got.Processors != 3 || got.Work != W || got.NCom != 2 || len(got.Comm) != 3 {
		t.Errorf("processors %d, work %d, ncom %d, comm %v", got.Processors, got.Work, got.NCom, got.Comm)
	}
	pPlus, _ := exactSet(chains, 2)
	pW, eW := exactSet(chains, W)
	relClose(t, "p_plus", float64(got.PPlus), pPlus)
	relClose(t, "p_success", float64(got.PSuccess), pW)
	relClose(t, "expected_time_conditional", float64(got.ExpectedTimeConditional), eW)
	// The published form, recomputed from the exact P+ and E_c = P+·(mean gap).
	ecExact := pPlus * ((eW - 1) / (W - 1))
	relClose(t, "expected_time_published", float64(got.ExpectedTimePublished), (1+(W-1)*ecExact)/math.Pow(pPlus, W-1))
	// E_comm with 3 members and n_com = 2: max(max_q E^(q)(n_q), (5+3+4)/2).
	mx := 6.0
	for i, n := range []int{5, 3, 4} {
		p1, _ := exactSet(chains[i:i+1], 2)
		_, e1 := exactSet(chains[i:i+1], n)
		// published single-processor form: (1 + (n-1)E_c)/P+^(n-1), E_c = P+·mean gap
		ec := p1 * (e1 - 1) / float64(n-1)
		if v := (1 + float64(n-1)*ec) / math.Pow(p1, float64(n-1)); v > mx {
			mx = v
		}
	}
	relClose(t, "e_comm", float64(*got.ECommPublished), mx)
	if p := float64(*got.PCommPublished); !(p > 0 && p < 1) {
		t.Errorf("p_comm = %g", p)
	}
	if got.ECommConditional == nil || got.PCommConditional == nil {
		t.Error("e_comm_conditional or p_comm_conditional missing")
	}
	without, err := AnalyzeSet(chains, W, 1e-9, 0, nil)
	if err != nil || without.ECommPublished != nil || without.Comm != nil || without.PPlus != got.PPlus {
		t.Errorf("without communication: %+v, %v", without, err)
	}
}
