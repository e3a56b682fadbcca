package availability

import "math"

// GeometricCDF is the CDF of the number of slots a Markov chain stays in a
// state with P(stay) = stay: P(N ≤ n) = 1 − stay^n for n ≥ 0.
func GeometricCDF(stay float64) func(n int) float64 {
	return func(n int) float64 {
		if n <= 0 {
			return 0
		}
		if stay <= 0 {
			return 1
		}
		return -math.Expm1(float64(n) * math.Log(stay))
	}
}

// SojournTest is the test of the Markov assumption for one state: are the
// complete sojourns observed in that state distributed as the geometric law
// the estimated chain implies (P(N = n) = P_ii^(n−1)·(1 − P_ii))? For
// several processors, each sojourn is compared with its own processor's
// law, pooled: the tested CDF is the mixture Σ_h (n_h/n)·G_h, n_h the
// number of sojourns of processor h.
//
// The p-value is Kolmogorov's asymptotic one (KSPValue). It is
// conservative twice over: on discrete data the null distribution of D is
// stochastically smaller than Kolmogorov's, and the chain was estimated
// from the same observations (Lilliefors). A small p-value is therefore
// strong evidence against the Markov assumption; a large one is weak
// evidence for it.
type SojournTest struct {
	State        State   `json:"-"`
	Name         string  `json:"state"`                // u, r, d
	Sojourns     int     `json:"sojourns"`             // complete sojourns observed
	Mean         float64 `json:"mean_slots"`           // their mean length
	ExpectedMean float64 `json:"geometric_mean_slots"` // the mean under the chain(s): 1/(1 − P_ii), pooled as the mixture
	KS           float64 `json:"ks"`                   // D of KSDiscrete
	P            float64 `json:"ks_p"`                 // KSPValue(D, Sojourns), conservative
}

// MarkovTest tests the sojourns of processors against their chains:
// sojourns[h] holds processor h's complete sojourns per state (Sojourns),
// chains[h] its estimated chain. It returns one result per state with at
// least one sojourn, in state order.
func MarkovTest(chains []Chain, sojourns [][3][]int) []SojournTest {
	var out []SojournTest
	for s := Up; s <= Down; s++ {
		var all []int
		type comp struct {
			w    float64
			stay float64
		}
		var mix []comp
		total := 0
		for h := range sojourns {
			total += len(sojourns[h][s])
		}
		if total == 0 {
			continue
		}
		t := SojournTest{State: s, Name: s.String(), Sojourns: total}
		for h := range sojourns {
			x := sojourns[h][s]
			if len(x) == 0 {
				continue
			}
			all = append(all, x...)
			stay := chains[h].P[s][s]
			w := float64(len(x)) / float64(total)
			mix = append(mix, comp{w, stay})
			t.ExpectedMean += w / (1 - stay)
			for _, v := range x {
				t.Mean += float64(v)
			}
		}
		t.Mean /= float64(total)
		cdf := func(n int) float64 {
			f := 0.0
			for _, c := range mix {
				f += c.w * GeometricCDF(c.stay)(n)
			}
			return f
		}
		t.KS = KSDiscrete(all, cdf)
		t.P = KSPValue(t.KS, total)
		out = append(out, t)
	}
	return out
}

// HostMarkov is one host's chain, estimated from its whole trace, and the
// test of its sojourns against it.
type HostMarkov struct {
	Host  string        `json:"host"`
	Chain Chain         `json:"chain"`
	Tests []SojournTest `json:"tests"`
}

// TraceMarkov estimates every host's chain from all its slots (an
// Estimator with the given prior, no wrap-around) and runs MarkovTest on
// each host's complete sojourns, and on all hosts pooled.
func TraceMarkov(sl *SlotTrace, prior [3][3]float64) (pooled []SojournTest, hosts []HostMarkov, err error) {
	var chains []Chain
	var soj [][3][]int
	for h := 0; h < sl.Hosts(); h++ {
		e, err := NewEstimator(prior)
		if err != nil {
			return nil, nil, err
		}
		sl.Observe(e, h)
		c := e.Chain()
		s := sl.Sojourns(h)
		id, _ := sl.Host(h)
		hosts = append(hosts, HostMarkov{Host: id, Chain: c, Tests: MarkovTest([]Chain{c}, [][3][]int{s})})
		chains = append(chains, c)
		soj = append(soj, s)
	}
	return MarkovTest(chains, soj), hosts, nil
}
