// Package sojourn holds the laws of the time a processor stays in one
// state (availability.Sojourn), each family registered once by name: the
// exponential (the memoryless law: a semi-Markov model with exponential
// sojourns is a Markov chain), the Weibull and the log-normal (seed 002 §V
// and seed 003 §3.1: availability intervals are "approximately Weibull or
// log-normal"), and whatever a program registers (Register). The platform
// decoder of package whatif (a semi-Markov worker's "dist") and the
// robustness study (its "model") look a family up by name (Lookup); none of
// them names a law.
//
// A new law is one file: a type implementing availability.Sojourn and one
// call to Register in the file's init (docs/extending.md). This package is
// not one of the model foundations (internal/layout): the Weibull's
// PartialMean is gonum's incomplete gamma function, and the model
// (availability) only knows the interface.
package sojourn

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/volsched/volsched/availability"
)

// Family is a family of sojourn laws, registered by name: everything the
// platform decoder and the robustness study need to build a law of it. The
// laws themselves (availability.Sojourn) carry their draw, mean, CDF,
// scaling and validation.
type Family struct {
	// Name is how platform files ("dist"), the robustness study ("model")
	// and trace fits name the family, in lower case ("weibull").
	Name string
	// Aliases are other accepted spellings ("log-normal").
	Aliases []string
	// Params are the parameters a platform file may give a law of the
	// family, in the order messages list them; a time in seconds ends in
	// "_seconds" (the decoder converts the law to slots with Scaled).
	Params []string
	// Decode builds a law, in seconds, from a platform file's parameters
	// (only names of Params are given). The error names the parameter:
	// Params.Positive and Params.OneOf make those errors.
	Decode func(p Params) (availability.Sojourn, error)
	// OfMean is the law of the family with the given shape parameter and
	// mean (the family is a scale family: the robustness study calibrates
	// the mean of a shape it is given); nil when the family cannot be used
	// that way. A family without a shape ignores it.
	OfMean func(shape, mean float64) availability.Sojourn
	// Shape names OfMean's shape parameter ("shape" for the Weibull's k,
	// "sigma" for the log-normal's σ); empty when OfMean takes none.
	Shape string
}

var registry struct {
	sync.RWMutex
	byName map[string]Family // names and aliases, lower case
	names  []string          // the names, sorted
}

// Register makes a family known by its name and aliases (case does not
// matter). It is meant for init functions: a missing name or Decode, or a
// name already registered, is a programming error and panics.
func Register(f Family) {
	if f.Name == "" || f.Decode == nil {
		panic(fmt.Sprintf("sojourn.Register(%q): a family needs a name and a Decode", f.Name))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byName == nil {
		registry.byName = map[string]Family{}
	}
	for _, n := range append([]string{f.Name}, f.Aliases...) {
		k := strings.ToLower(n)
		if _, dup := registry.byName[k]; dup {
			panic(fmt.Sprintf("sojourn.Register: %q is already registered", n))
		}
		registry.byName[k] = f
	}
	registry.names = append(registry.names, f.Name)
	slices.Sort(registry.names)
}

// Lookup returns the family registered under name or one of its aliases
// (case does not matter). An unknown name is an error naming it and the
// registered families.
func Lookup(name string) (Family, error) {
	registry.RLock()
	f, ok := registry.byName[strings.ToLower(name)]
	registry.RUnlock()
	if !ok {
		return Family{}, fmt.Errorf("sojourn law %q: want %s (the registered laws)", name, List())
	}
	return f, nil
}

// Names lists the registered families' names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.names)
}

// List is Names for messages: "exponential, lognormal or weibull".
func List() string {
	n := Names()
	if len(n) <= 1 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// Params are the numeric parameters a platform file gives a law, by name.
type Params map[string]float64

// Positive returns parameter name, which must be given, finite and > 0.
func (p Params) Positive(name string) (float64, error) {
	v, ok := p[name]
	if !ok {
		return 0, fmt.Errorf("missing %s", name)
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s = %v, want a finite number > 0", name, v)
	}
	return v, nil
}

// Finite returns parameter name, which must be given and finite; want
// says what it is in the error.
func (p Params) Finite(name, want string) (float64, error) {
	v, ok := p[name]
	if !ok {
		return 0, fmt.Errorf("missing %s", name)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s = %v, want %s", name, v, want)
	}
	return v, nil
}

// OneOf returns which of a and b is given: exactly one must be.
func (p Params) OneOf(a, b string) (string, error) {
	_, hasA := p[a]
	_, hasB := p[b]
	switch {
	case hasA && hasB:
		return "", fmt.Errorf("both %s and %s given, want one", a, b)
	case hasA:
		return a, nil
	case hasB:
		return b, nil
	}
	return "", fmt.Errorf("missing %s or %s", a, b)
}

// positive checks a parameter of a law: finite and > 0.
func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s = %v, want a finite number > 0", name, v)
	}
	return nil
}

// checkMean is the check every law's Validate ends with: a finite mean > 0
// (the semi-Markov model's time fractions and the slot means need it).
func checkMean(d availability.Sojourn) error {
	if m := d.Mean(); !(m > 0) || math.IsInf(m, 0) {
		return fmt.Errorf("%s law with mean %v: want a finite mean > 0", d.Family(), m)
	}
	return nil
}
