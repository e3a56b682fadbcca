package master

import "github.com/volsched/volsched/iterative"

// PredictParams describe a prediction of a makespan on a platform as the
// master estimates it (iterative.ForecastInput: the instance, the
// heuristic, the runs, the initial states, the interval's level).
type PredictParams = iterative.ForecastInput

// Forecast is a predicted makespan in slots: mean, standard deviation and
// an interval (iterative.Forecast).
type Forecast = iterative.Forecast

// A Predictor predicts makespans. The master imports no simulator: the
// CLI gives it whatif/simulate's (the slot simulator, the same code as
// `volsched simulate`), and a master without one predicts nothing.
type Predictor interface {
	Predict(PredictParams) (Forecast, error)
}

// PredictorFunc is a function as a Predictor.
type PredictorFunc func(PredictParams) (Forecast, error)

func (f PredictorFunc) Predict(p PredictParams) (Forecast, error) { return f(p) }
