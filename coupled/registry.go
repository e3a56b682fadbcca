package coupled

import (
	"fmt"
	"strings"

	"github.com/volsched/volsched/internal/regname"
)

// registry is the table of heuristics, by name (regardless of case) and
// in the order Heuristics returns them.
var registry regname.Table[Heuristic]

// What the passive building blocks and the switching criteria do, for the
// descriptions of the 17.
var (
	passiveNames = map[Criterion]string{Prob: "IP", Time: "IE", Yield: "IY", ApparentYield: "IAY"}
	passiveWhat  = map[Criterion]string{
		Prob:          "maximizes P, the configuration's probability to complete the iteration",
		Time:          "minimizes E, the configuration's expected time to complete the iteration",
		Yield:         "maximizes the yield P/(t+E), t the slots since the iteration began",
		ApparentYield: "maximizes the apparent yield P/E",
	}
	switchNames = map[Criterion]string{Prob: "P", Time: "E", Yield: "Y"}
	switchWhat  = map[Criterion]string{Prob: "its P is larger", Time: "its E is smaller", Yield: "its yield P/(t+E) is larger"}
)

// The 17 heuristics of §VI, registered in its order (RANDOM; the passive
// IP, IE, IY, IAY; C-H for C ∈ {P, E, Y}, H ∈ {IP, IE, IY, IAY}); a
// heuristic's position is the label of its random stream (Stream): the
// committed results depend on it.
func init() {
	paper := []Heuristic{{Name: "RANDOM", Build: Random,
		Description: "each task to an UP worker drawn uniformly at random; the configuration is kept until a member goes DOWN"}}
	builds := []Criterion{Prob, Time, Yield, ApparentYield}
	for _, b := range builds {
		paper = append(paper, Heuristic{Name: passiveNames[b], Build: b,
			Description: fmt.Sprintf("passive greedy (§VI.A): each task in turn to the UP worker that %s; kept until a member goes DOWN", passiveWhat[b])})
	}
	for _, c := range []Criterion{Prob, Time, Yield} {
		for _, b := range builds {
			paper = append(paper, Heuristic{Name: switchNames[c] + "-" + passiveNames[b], Build: b, Switch: c,
				Description: fmt.Sprintf("proactive %s (§VI.B): at every slot builds a configuration as %s does and switches to it when %s than the running one's",
					passiveNames[b], passiveNames[b], switchWhat[c])})
		}
	}
	for i, h := range paper {
		if _, err := register(h, true, uint64(i)); err != nil {
			panic(err)
		}
	}
}

// Register checks h (Validate) and adds it to the table of heuristics under
// its name; from then on ParseHeuristic finds it and every driver runs it.
// A program registers its heuristics in an init function (MustRegister), as
// database/sql drivers are. It is an error to register a name twice (in any
// case). The returned value is the registered heuristic (its Stream set).
func Register(h Heuristic) (Heuristic, error) { return register(h, false, 0) }

// MustRegister is Register that panics on an error, for init functions
// and package variables.
func MustRegister(h Heuristic) Heuristic {
	r, err := Register(h)
	if err != nil {
		panic(err)
	}
	return r
}

func register(h Heuristic, paper bool, label uint64) (Heuristic, error) {
	if err := h.Validate(); err != nil {
		return Heuristic{}, err
	}
	if !paper {
		label = regname.Label(h.Name)
	}
	h.stream, h.registered = label, true
	if err := registry.Add("heuristic", h.Name, label, paper, h); err != nil {
		return Heuristic{}, err
	}
	return h, nil
}

// Validate checks a heuristic before registration: a name of 1 to 32
// letters, digits or "*+-_." (it appears in comma-separated lists, CSV
// headers and file names), a description of one line, and how it decides
// (Check).
func (h Heuristic) Validate() error {
	if err := regname.Check("heuristic", h.Name); err != nil {
		return err
	}
	if err := regname.CheckLine("heuristic", h.Name, "description", h.Description); err != nil {
		return err
	}
	return h.Check()
}

// Heuristics returns every registered heuristic: the 17 of §VI in its
// order (RANDOM, IP, IE, IY, IAY, then C-H for C ∈ {P, E, Y}, H ∈ {IP, IE,
// IY, IAY}), then the others by name (not in the order they were
// registered).
func Heuristics() []Heuristic { return registry.All() }

// Paper returns the 17 heuristics of §VI in its order.
func Paper() []Heuristic { return registry.Paper() }

// HeuristicNames lists the names of Heuristics() in order.
func HeuristicNames() []string { return Names(Heuristics()) }

// Names returns the names of hs.
func Names(hs []Heuristic) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// ParseHeuristic finds a registered heuristic by name (case-insensitive).
func ParseHeuristic(name string) (Heuristic, error) {
	h, ok := registry.Get(name, true)
	if !ok {
		return Heuristic{}, fmt.Errorf("heuristic %q: want one of %s", name, strings.Join(HeuristicNames(), ", "))
	}
	return h, nil
}

// ParseHeuristics looks up a list of names (ParseHeuristic); a heuristic
// named twice is an error. An empty list is all of them (Heuristics).
func ParseHeuristics(names []string) ([]Heuristic, error) {
	return regname.ParseList("heuristic", names, ParseHeuristic, func(h Heuristic) string { return h.Name }, Heuristics)
}
