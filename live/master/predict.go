package master

import "github.com/volsched/volsched/availability"

// PredictParams describe a prediction of a makespan on a platform as the
// master estimates it: each worker's chain and w_q; T_prog, T_data and
// n_com in slots; the tasks of an iteration and the iterations; the
// heuristic and its extra replicas; Runs simulated runs drawn from Seed;
// the interval's Level (0: the predictor's default). Each worker starts in
// Start[q]; with Start nil, every worker is UP at slot 0 when AllUp, else
// its state is drawn from its chain's stationary distribution.
type PredictParams struct {
	Chains        []availability.Chain
	W             []int
	TProg, TData  int
	NCom          int
	Tasks         int
	Iterations    int
	Heuristic     string
	ExtraReplicas int
	Runs          int
	Seed          uint64
	Start         []availability.State
	AllUp         bool
	Level         float64
}

// Forecast is a predicted makespan in slots: the mean and standard
// deviation of the simulated runs, and [Lo, Hi], an interval holding the
// Level fraction of them.
type Forecast struct {
	Mean, SD float64
	Lo, Hi   float64
	Level    float64
	Runs     int
}

// A Predictor predicts makespans. The master imports no simulator: the
// CLI gives it whatif/simulate's (the slot simulator, the same code as
// `volsched simulate`), and a master without one predicts nothing.
type Predictor interface {
	Predict(PredictParams) (Forecast, error)
}

// PredictorFunc is a function as a Predictor.
type PredictorFunc func(PredictParams) (Forecast, error)

func (f PredictorFunc) Predict(p PredictParams) (Forecast, error) { return f(p) }
