package analytic

import "fmt"

// EComm is E_comm(S) of seed 002 §V.B, the estimated duration of the
// communication phase of a configuration whose member qs[i] needs slots[i]
// slots of communication (program and data). With |S| ≤ n_com it is
// max_q E^{(P_q)}(n_q); with more members than channels it is
// max(max_q E^{(P_q)}(n_q), Σ_q n_q / n_com). A member with nothing to
// receive contributes 0. The single-processor expectation uses form f.
func (t *Table) EComm(qs []int, slots []float64, ncom int, f Form) float64 {
	if len(qs) != len(slots) {
		panic(fmt.Sprintf("analytic.EComm: %d processors but %d slot counts", len(qs), len(slots)))
	}
	mx, sum := 0.0, 0.0
	for i, q := range qs {
		n := slots[i]
		sum += n
		if e := t.procs[q].single.ExpectedTime(n, f); e > mx {
			mx = e
		}
	}
	if len(qs) > ncom && ncom > 0 {
		if b := sum / float64(ncom); b > mx {
			mx = b
		}
	}
	return mx
}

// PComm is P_comm(S) of seed 002 §V.B, the estimated probability that no
// member goes DOWN during the communication phase: ∏_q P_ND^{(q)}(E_comm).
func (t *Table) PComm(qs []int, ecomm float64) float64 {
	p := 1.0
	for _, q := range qs {
		p *= t.PNotDown(q, ecomm)
	}
	return p
}
