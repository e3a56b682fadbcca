package robustness

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/availability/sojourn"
)

// renamedWeibull is the Weibull law under another family name: a law a
// program registers, which the study must take by name with no change of
// its own.
type renamedWeibull struct{ sojourn.Weibull }

func (renamedWeibull) Family() string { return "test-weibull" }

func (d renamedWeibull) Scaled(u float64) availability.Sojourn {
	return renamedWeibull{d.Weibull.Scaled(u).(sojourn.Weibull)}
}

func init() {
	sojourn.Register(sojourn.Family{
		Name: "test-weibull",
		Decode: func(p sojourn.Params) (availability.Sojourn, error) {
			return nil, nil
		},
		OfMean: func(shape, mean float64) availability.Sojourn {
			return renamedWeibull{sojourn.WeibullMean(shape, mean)}
		},
	})
	sojourn.Register(sojourn.Family{
		Name:   "test-no-shape",
		Decode: func(p sojourn.Params) (availability.Sojourn, error) { return nil, nil },
	})
}

// TestModelErrors: availabilities and variants the study refuses, each
// with an error naming the field, the value and what is wanted.
func TestModelErrors(t *testing.T) {
	base := Availability{Name: "a", Model: "weibull", Shape: 0.5, History: 10}
	for _, c := range []struct {
		a    Availability
		b    Beliefs
		want string
	}{
		{Availability{Name: "a", Model: "gamma"}, Beliefs{}, `model "gamma", want markov, markov-sources, trace or a sojourn law with a shape (exponential, lognormal, test-no-shape, test-weibull or weibull)`},
		{Availability{Name: "a", Model: "test-no-shape", Shape: 1}, Beliefs{}, `model "test-no-shape", want markov`},
		{func() Availability { a := base; a.Shape = 20; return a }(), Beliefs{}, "shape = 20, want the weibull law's shape in 0.05..10"},
		{Availability{Name: "a", Model: "markov", History: 5}, Beliefs{Known: true}, "history = 5, want 0"},
		{Availability{Name: "a", Model: "markov"}, Beliefs{}, "estimated chains need a view from slot 0"},
		{Availability{Name: "a", Model: "trace", SlotSeconds: 60, Unavailable: "down", Trace: "ucb"}, Beliefs{Known: true}, "known chains with model trace: it has no chain"},
		{Availability{Name: "a", Model: "trace", SlotSeconds: 60, Unavailable: "up", Trace: "ucb"}, Beliefs{}, `unavailable = "up", want down or reclaimed`},
	} {
		err := validate([]Availability{c.a}, []Variant{{Name: "v", Availability: "a", Beliefs: c.b}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.a, err, c.want)
		}
	}
}

// TestRegisteredLawRuns: a sojourn law registered by a program (here the
// Weibull under another name) is a model of the study by its name, and
// gives exactly the study's Weibull model's makespans; the exponential law
// is one too.
func TestRegisteredLawRuns(t *testing.T) {
	c := DefaultIndependent()
	c.Grid = tinyGrid()
	c.Availabilities = []Availability{
		{Name: "weibull", Model: "weibull", Shape: UCBWeibullShape, History: 100},
		{Name: "renamed", Model: "test-weibull", Shape: UCBWeibullShape, History: 100},
		{Name: "exponential", Model: "exponential", History: 100},
	}
	c.Variants = []Variant{{"weibull", "weibull", Beliefs{Known: true}}, {"renamed", "renamed", Beliefs{Known: true}}, {"exponential", "exponential", Beliefs{Refresh: 10}}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for u := 0; u < c.Units(); u++ {
		r, err := c.RunUnit(context.Background(), 5, u)
		if err != nil {
			t.Fatal(err)
		}
		// The availabilities' seeds differ by their index: run the
		// renamed law at the Weibull's index to compare.
		c2 := c
		c2.Availabilities = []Availability{c.Availabilities[1]}
		c2.Variants = []Variant{{"renamed", "renamed", Beliefs{Known: true}}}
		r2, err := c2.RunUnit(context.Background(), 5, u)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Makespans[0], r2.Makespans[0]) {
			t.Errorf("unit %d: the renamed Weibull %v, the Weibull %v", u, r2.Makespans[0], r.Makespans[0])
		}
	}
}
