package iterative

import "github.com/volsched/volsched/availability"

// ForecastInput asks for a forecast of an instance's makespan under a
// heuristic (any registered one) with its extra replicas:
// Runs simulated runs drawn from Seed, and the interval's Level (0: the
// forecaster's default). Each processor starts in Start[q]; with Start
// nil, every processor is UP at slot 0 when AllUp, else its state is drawn
// from its chain's stationary distribution.
//
// The live master asks for one through live/master.Predictor, which the
// CLI wires to whatif/simulate.ForecastIterative (the slot simulator): the
// type lives here, in the model both import, because neither may import
// the other.
type ForecastInput struct {
	Instance
	Heuristic     Heuristic
	ExtraReplicas int
	Runs          int
	Seed          uint64
	Start         []availability.State
	AllUp         bool
	Level         float64
}

// Forecast is a forecast makespan in slots: the mean and the sample
// standard deviation of the simulated runs' makespans, and [Lo, Hi], an
// interval holding the Level fraction of them (an interval for one run's
// makespan, not for the mean).
type Forecast struct {
	Mean, SD float64
	Lo, Hi   float64
	Level    float64
	Runs     int
}
