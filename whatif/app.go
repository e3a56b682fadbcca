package whatif

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// AppKind is the application model.
type AppKind uint8

const (
	// Independent is seed 001's iterative application of independent
	// tasks.
	Independent AppKind = iota
	// Coupled is seed 002's tightly-coupled iterative application.
	Coupled
)

// String names the kind as the file does.
func (k AppKind) String() string {
	switch k {
	case Independent:
		return "independent"
	case Coupled:
		return "coupled"
	}
	return fmt.Sprintf("AppKind(%d)", uint8(k))
}

// Application is a checked application file.
type Application struct {
	Source     string
	Kind       AppKind
	Tasks      int // tasks per iteration (m)
	Iterations int
	// Mu bounds the tasks a worker holds at once (coupled only; 0:
	// unbounded); MuPerWorker overrides it for the named workers.
	Mu          int
	MuPerWorker map[string]int
}

type rawApp struct {
	Comment     json.RawMessage `json:"comment"`
	Kind        *string         `json:"kind"`
	Tasks       *int            `json:"tasks"`
	Iterations  *int            `json:"iterations"`
	Mu          *int            `json:"mu"`
	MuPerWorker map[string]int  `json:"mu_per_worker"`
}

// ParseApplication reads and checks an application file
// (docs/whatif.md). source names it in errors.
func ParseApplication(data []byte, source string) (*Application, error) {
	var r rawApp
	if err := decodeStrict(data, &r, source); err != nil {
		return nil, err
	}
	a := &Application{Source: source}
	if r.Kind == nil {
		return nil, fmt.Errorf("%s: missing \"kind\" (independent or coupled)", source)
	}
	switch *r.Kind {
	case "independent":
		a.Kind = Independent
	case "coupled":
		a.Kind = Coupled
	default:
		return nil, fmt.Errorf("%s: kind = %q, want independent or coupled", source, *r.Kind)
	}
	if r.Tasks == nil {
		return nil, fmt.Errorf("%s: missing \"tasks\" (tasks per iteration)", source)
	}
	if err := checkInt(source, "tasks", *r.Tasks, 1, MaxTasks, fmt.Sprintf("an integer in [1, %d] (tasks per iteration)", MaxTasks)); err != nil {
		return nil, err
	}
	a.Tasks = *r.Tasks
	if r.Iterations == nil {
		return nil, fmt.Errorf("%s: missing \"iterations\"", source)
	}
	if err := checkInt(source, "iterations", *r.Iterations, 1, MaxIterations, fmt.Sprintf("an integer in [1, %d]", MaxIterations)); err != nil {
		return nil, err
	}
	a.Iterations = *r.Iterations
	if a.Kind == Independent && (r.Mu != nil || r.MuPerWorker != nil) {
		return nil, fmt.Errorf("%s: mu and mu_per_worker are for coupled applications (seed 002's μ_q); an independent worker runs one task at a time", source)
	}
	if r.Mu != nil {
		if err := checkInt(source, "mu", *r.Mu, 0, MaxTasks, fmt.Sprintf("an integer in [0, %d] (0: unbounded)", MaxTasks)); err != nil {
			return nil, err
		}
		a.Mu = *r.Mu
	}
	if r.MuPerWorker != nil {
		a.MuPerWorker = map[string]int{}
		names := make([]string, 0, len(r.MuPerWorker))
		for n := range r.MuPerWorker {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			v := r.MuPerWorker[n]
			if strings.TrimSpace(n) == "" {
				return nil, fmt.Errorf("%s: mu_per_worker has an empty worker name", source)
			}
			if err := checkInt(source, fmt.Sprintf("mu_per_worker[%q]", n), v, 0, MaxTasks, fmt.Sprintf("an integer in [0, %d] (0: unbounded)", MaxTasks)); err != nil {
				return nil, err
			}
			a.MuPerWorker[n] = v
		}
	}
	return a, nil
}
