package iterative

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/volsched/volsched/internal/regname"
)

// A Heuristic is one registered heuristic of the iterative model: the 17
// of §6 (Random … UDStar) and any a program registers (Register). It is a
// handle to an immutable description: small, comparable with ==, passed by
// value; the zero Heuristic is no heuristic (Valid reports false). Drivers
// take a Heuristic value, never a name: a name is looked up once, where it
// is read (ParseHeuristic, UnmarshalText).
type Heuristic struct{ s *spec }

// KeyFunc is a greedy heuristic's criterion (§6.3): the quantity it
// minimizes for processor q of snapshot s when q's completion time for the
// task being placed would be ct (CT of Eq. 1, or of Eq. 2 with
// Spec.Contention; it counts the tasks q already got in this round). Each
// task goes to the UP processor of smallest key, ties to the lowest index.
// It must be a pure function of its arguments, safe for concurrent use,
// and must not decrease when ct grows (for a fixed s and q): the decision's
// shortcuts rely on it (docs/model-001.md). s.Crit[q] holds q's chain and
// the quantities derived from it; s.Procs[q] what q holds and its speed.
type KeyFunc func(s *Snapshot, q int, ct float64) float64

// WeightFunc is a random heuristic's weight (§6.2): a processor with
// criteria c and speed w (UP slots per task) gets each task with
// probability proportional to it among the UP processors (uniformly when
// the weights are all 0, or not finite). It must be ≥ 0, a pure function
// of its arguments and safe for concurrent use: drivers compute it once per
// processor and keep it while the processor's chain stays the same.
type WeightFunc func(c *Criteria, w int) float64

// DecideFunc is a whole decision, for a heuristic that is neither a greedy
// key nor a random weight: it returns the picks, appended to out (given
// with length 0), that Decider.DecideWith would return (see there and
// Hints). x may be nil; its Up, Weights, Want and StopAfter only describe
// the snapshot or ask for less and may be ignored; Queued (a model
// variant) must be honoured. rng is the heuristic's random stream (nil
// unless Spec.Random). It must be safe for concurrent use (drivers decide
// from several goroutines) and must not modify s. A pick must name an open
// task and an UP processor by their index in s: DecideWith panics
// otherwise, naming the heuristic.
type DecideFunc func(s *Snapshot, x *Hints, rng *rand.Rand, out []Pick) []Pick

// Spec describes a heuristic to register: its name, family and one-line
// description, and how it decides: exactly one of Key (greedy), Weight
// (random) or Decide (a whole decision). Decider does the rest for Key and
// Weight as for the paper's: the task order, the contention factor, the
// replicas of §6.1, the shortcuts of the slot simulator.
type Spec struct {
	// Name is how users, campaigns and results name the heuristic: 1 to
	// 32 letters, digits or "*+-_.", unique among the registered ones
	// regardless of case ("EMCT*" for the paper's).
	Name string
	// Family groups related heuristics in listings ("EMCT" for EMCT and
	// EMCT*, "RANDOM" for the nine random ones); empty: the name.
	Family string
	// Description says in one line what it does (listings, --help,
	// docs/whatif.md).
	Description string
	// Key makes a greedy heuristic.
	Key KeyFunc
	// Contention (with Key) computes CT with Eq. 2, the data time
	// multiplied by ⌈n_active/n_com⌉ (the starred heuristics of §6.3).
	Contention bool
	// Weight makes a random heuristic.
	Weight WeightFunc
	// Decide makes a heuristic that takes the whole decision itself.
	Decide DecideFunc
	// Random (with Decide) says it draws from its random stream; drivers
	// then give it one (Key never draws, Weight always does).
	Random bool
}

// spec is a registered heuristic: its Spec and its random stream's label.
type spec struct {
	Spec
	// stream labels the heuristic's random stream in the campaigns and
	// what-if runs (Heuristic.Stream).
	stream uint64
	// paper is true for the 17 of §6.
	paper bool
	// fast, for the greedy ones among them, names their key (paperKey):
	// Decider calls it directly.
	fast paperKey
}

// registry is the table of heuristics, by name and in the order Heuristics
// returns them.
var registry regname.Table[Heuristic]

// Register checks spec and adds it to the table of heuristics under its
// name; from then on ParseHeuristic finds it and every driver runs it. A
// program registers its heuristics in an init function (MustRegister), as
// database/sql drivers are. It is an error to register a name twice (in
// any case), or a spec that Validate refuses.
func Register(s Spec) (Heuristic, error) {
	return register(s, false, 0)
}

// MustRegister is Register that panics on an error, for init functions
// and package variables.
func MustRegister(s Spec) Heuristic {
	h, err := Register(s)
	if err != nil {
		panic(err)
	}
	return h
}

// paperHeuristic registers one of the 17 of §6 with its random stream's
// label: its position in §6's order, which the committed results' random
// draws depend on.
func paperHeuristic(label uint64, s Spec) Heuristic {
	h, err := register(s, true, label)
	if err != nil {
		panic(err)
	}
	return h
}

func register(s Spec, paper bool, label uint64) (Heuristic, error) {
	if err := s.Validate(); err != nil {
		return Heuristic{}, err
	}
	if s.Family == "" {
		s.Family = s.Name
	}
	if !paper {
		label = regname.Label(s.Name)
	}
	h := Heuristic{&spec{Spec: s, stream: label, paper: paper}}
	if err := registry.Add("heuristic", s.Name, label, paper, h); err != nil {
		return Heuristic{}, err
	}
	return h, nil
}

// Validate checks a spec before registration: a name of 1 to 32 letters,
// digits or "*+-_." (it appears in comma-separated lists, CSV headers and
// file names), a description of one line, exactly one of Key, Weight and
// Decide, Contention only with Key, Random only with Decide.
func (s *Spec) Validate() error {
	if err := regname.Check("heuristic", s.Name); err != nil {
		return err
	}
	if err := regname.CheckLine("heuristic", s.Name, "description", s.Description); err != nil {
		return err
	}
	if strings.ContainsAny(s.Family, "\r\n,") {
		return fmt.Errorf("heuristic %q: family %q, want one line without commas", s.Name, s.Family)
	}
	n := 0
	for _, set := range []bool{s.Key != nil, s.Weight != nil, s.Decide != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return fmt.Errorf("heuristic %q: %d of Key, Weight and Decide set, want exactly one", s.Name, n)
	case s.Contention && s.Key == nil:
		return fmt.Errorf("heuristic %q: Contention without Key, want it only for a greedy heuristic", s.Name)
	case s.Random && s.Decide == nil:
		return fmt.Errorf("heuristic %q: Random without Decide, want it only for a whole decision (Weight always draws, Key never)", s.Name)
	}
	return nil
}

// Heuristics returns every registered heuristic: the 17 of §6 in its order,
// then the others by name (not in the order they were registered).
func Heuristics() []Heuristic { return registry.All() }

// Paper returns the 17 heuristics of §6 in its order (Table 2's rows).
func Paper() []Heuristic { return registry.Paper() }

// Names returns the names of hs.
func Names(hs []Heuristic) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

// ParseHeuristic looks a heuristic up by name, as the paper writes it
// (case sensitive: "EMCT*", "RANDOM2W") or as it was registered.
func ParseHeuristic(name string) (Heuristic, error) {
	h, ok := registry.Get(name, false)
	if !ok {
		return Heuristic{}, fmt.Errorf("heuristic %q: want one of %v", name, Names(Heuristics()))
	}
	return h, nil
}

// ParseHeuristics looks up a list of names (ParseHeuristic); a name given
// twice is an error. An empty list is all of them (Heuristics).
func ParseHeuristics(names []string) ([]Heuristic, error) {
	return regname.ParseList("heuristic", names, ParseHeuristic, Heuristic.String, Heuristics)
}

// String is the heuristic's name.
func (h Heuristic) String() string {
	if h.s == nil {
		return "Heuristic(none)"
	}
	return h.s.Name
}

// MarshalText is the heuristic's name (an error for the zero Heuristic).
func (h Heuristic) MarshalText() ([]byte, error) {
	if h.s == nil {
		return nil, fmt.Errorf("no heuristic (the zero Heuristic) has no name")
	}
	return []byte(h.s.Name), nil
}

// UnmarshalText looks the name up (ParseHeuristic): a configuration file
// decoded into a Heuristic names it once, where it is read.
func (h *Heuristic) UnmarshalText(b []byte) error {
	v, err := ParseHeuristic(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// Valid reports whether h is a heuristic (not the zero Heuristic).
func (h Heuristic) Valid() bool { return h.s != nil }

// Family is the heuristic's family (Spec.Family).
func (h Heuristic) Family() string { return h.s.Family }

// Description says in one line what the heuristic does.
func (h Heuristic) Description() string { return h.s.Description }

// Kind is how a heuristic decides (Heuristic.Kind).
type Kind uint8

const (
	// KindGreedy is a key (Spec.Key): each task to the UP processor of
	// smallest key.
	KindGreedy Kind = iota + 1
	// KindRandom is a weight (Spec.Weight): each task to an UP processor
	// drawn with probability proportional to its weight.
	KindRandom
	// KindDecision is a whole decision of the heuristic's own
	// (Spec.Decide).
	KindDecision
)

// String names the kind as listings do: "greedy", "random", "decision".
func (k Kind) String() string {
	switch k {
	case KindGreedy:
		return "greedy"
	case KindRandom:
		return "random"
	case KindDecision:
		return "decision"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Kind says how the heuristic decides: a key, a weight or a whole
// decision.
func (h Heuristic) Kind() Kind {
	switch {
	case h.s.Key != nil:
		return KindGreedy
	case h.s.Weight != nil:
		return KindRandom
	}
	return KindDecision
}

// IsRandom reports whether h draws from a random stream: the random
// heuristics (a weight), and whole decisions registered as Random. Drivers
// must then give it one.
func (h Heuristic) IsRandom() bool { return h.s.Weight != nil || h.s.Random }

// Contention reports whether h uses the contention-correcting factor of
// Eq. 2 (the starred greedy heuristics).
func (h Heuristic) Contention() bool { return h.s.Contention }

// Paper reports whether h is one of the 17 heuristics of §6.
func (h Heuristic) Paper() bool { return h.s.paper }

// Stream is the label of h's random stream in the campaigns and what-if
// runs (their stream of a random heuristic's draws ends with it): the
// heuristic's position in §6's order for the paper's (what the committed
// results were drawn with), 2^32 plus a hash of the name for the others,
// so that a heuristic's draws do not depend on which others are
// registered.
func (h Heuristic) Stream() uint64 { return h.s.stream }

// Key is the quantity greedy heuristic h minimizes for processor q of
// snapshot s whose completion time is ct (Spec.Key). It panics for a
// heuristic that is not greedy.
func (h Heuristic) Key(s *Snapshot, q int, ct float64) float64 { return h.s.Key(s, q, ct) }

// Weight is random heuristic h's weight of a processor with criteria c and
// speed w (Spec.Weight); 0 for a heuristic that is not a random one.
func (h Heuristic) Weight(c *Criteria, w int) float64 {
	if h.s.Weight == nil {
		return 0
	}
	return h.s.Weight(c, w)
}
