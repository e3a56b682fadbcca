package overlay

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// PolicyDef is one scheduling policy, everything package overlay and its
// drivers need of it: its name and number, its defaults, its rules, its
// execution nodes' local scheduler and the one encoding of its summaries.
// It is registered once, by RegisterPolicy (IBP, MMP and DP register
// themselves in ibp.go, mmp.go and dp.go), and looked up by name
// (ParsePolicy): the simulator (package oversim), the accuracy
// experiment, the campaigns' figures, the authors' variants and the
// daemons (package overlay/node) take a policy from the registry and have
// no switch over the built-in ones, so a new policy is one file with one
// registration (docs/extending.md, "An overlay policy").
type PolicyDef struct {
	// Name is the policy's name as the command line, the JSON records and
	// the reports spell it: 1 to 16 lower-case letters, digits or '-',
	// starting with a letter ("ibp").
	Name string
	// ID is the policy's stable number, 1 to MaxPolicyID: the tag of its
	// summaries on the wire (a deployed daemon reads it) and the label of
	// the random streams drawn for it (the accuracy experiment's node
	// states). IBP, MMP and DP are 1, 2 and 3. Never reuse another
	// policy's.
	ID int
	// SFMax is the default maximum number of sampled functions of a
	// summary (Options.SFMax), 1 to MaxSFMax.
	SFMax int
	// Bandwidth is the default update limit, bytes per second per link
	// (Config.Bandwidth), > 0.
	Bandwidth float64
	// Deadlines says that the policy schedules by the tasks' deadlines:
	// a driver gives a job submitted without one a deadline (the
	// simulator's Config.NoDeadlineSlack, the daemons' seven days), and a
	// daemon fails the tasks of a job whose deadline passed before they
	// were placed. DP does; IBP and MMP ignore deadlines.
	Deadlines bool
	// Rules builds the policy's rules from options that Options.Validate
	// accepted and whose Policy is this one (NewRules calls it).
	Rules func(o Options) (Rules, error)
	// Exec builds the local scheduler of an execution node with hardware
	// hw under the (defaulted) options o (Policy.NewExec calls it). An
	// executor that implements SavedExec can be saved in checkpoints.
	Exec func(hw Hardware, o Options) Exec
	// Codec is the one encoding of the policy's summaries, from which both
	// their wire form (AppendMsg, DecodeMsg) and their form in checkpoints
	// (SummaryEncoder) are derived. The policy's summary types say which
	// policy they belong to (PolicySummary).
	Codec SummaryCodec
}

// MaxPolicyID bounds PolicyDef.ID: ids are looked up in a table when a
// summary is decoded.
const MaxPolicyID = 255

// Hardware is what an execution node offers: memory and disk in MB,
// computing power in MFLOPS (MI per second).
type Hardware struct{ Mem, Disk, Power float64 }

// Policy is a registered policy (RegisterPolicy, ParsePolicy). Two
// Policies are equal when they are the same registration. The zero value
// is no policy: Options.Validate refuses it.
type Policy struct{ d *PolicyDef }

// registry is one state of the registered policies, replaced whole by
// each registration (readers load it without a lock).
type registry struct {
	byName map[string]Policy
	byID   [MaxPolicyID + 1]Policy
	list   []Policy // by ID
}

var (
	registered atomic.Pointer[registry]
	registerMu sync.Mutex
)

func current() *registry {
	if r := registered.Load(); r != nil {
		return r
	}
	return &registry{}
}

// RegisterPolicy registers the policy def and returns it as a Policy. It
// refuses a definition with a field missing or out of range, and a name or
// ID already registered (naming the policy that holds it). Call it from
// an init function or a package-level variable, as ibp.go does.
func RegisterPolicy(def PolicyDef) (Policy, error) {
	if err := def.validate(); err != nil {
		return Policy{}, err
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	old := current()
	if p, ok := old.byName[def.Name]; ok {
		return Policy{}, fmt.Errorf("overlay policy %q: already registered (id %d)", def.Name, p.d.ID)
	}
	if p := old.byID[def.ID]; p.d != nil {
		return Policy{}, fmt.Errorf("overlay policy %q: id %d is already policy %q's", def.Name, def.ID, p.d.Name)
	}
	p := Policy{d: &def}
	r := &registry{byName: make(map[string]Policy, len(old.byName)+1), byID: old.byID, list: append(slices.Clip(old.list), p)}
	for k, v := range old.byName {
		r.byName[k] = v
	}
	r.byName[def.Name] = p
	r.byID[def.ID] = p
	slices.SortFunc(r.list, func(a, b Policy) int { return a.d.ID - b.d.ID })
	registered.Store(r)
	return p, nil
}

// MustRegisterPolicy is RegisterPolicy for a package-level variable: it
// panics on an error (a programming error, found when the program starts).
func MustRegisterPolicy(def PolicyDef) Policy {
	p, err := RegisterPolicy(def)
	if err != nil {
		panic(err)
	}
	return p
}

// validate checks a definition; errors name the field and the value.
func (d *PolicyDef) validate() error {
	ok := len(d.Name) >= 1 && len(d.Name) <= 16 && d.Name[0] >= 'a' && d.Name[0] <= 'z'
	for _, c := range d.Name {
		ok = ok && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}
	switch {
	case !ok:
		return fmt.Errorf("overlay policy name %q: want 1 to 16 lower-case letters, digits or '-', starting with a letter", d.Name)
	case d.ID < 1 || d.ID > MaxPolicyID:
		return fmt.Errorf("overlay policy %q: id %d: want 1 to %d", d.Name, d.ID, MaxPolicyID)
	case d.SFMax < 1 || d.SFMax > MaxSFMax:
		return fmt.Errorf("overlay policy %q: default SF_max %d: want 1 to %d", d.Name, d.SFMax, MaxSFMax)
	case !(d.Bandwidth > 0) || math.IsInf(d.Bandwidth, 1):
		return fmt.Errorf("overlay policy %q: default bandwidth %g B/s: want a finite value > 0", d.Name, d.Bandwidth)
	case d.Rules == nil || d.Exec == nil || d.Codec == nil:
		return fmt.Errorf("overlay policy %q: Rules, Exec and Codec are all needed", d.Name)
	}
	return nil
}

// ParsePolicy returns the policy registered under name; an unknown name is
// an error naming it and the registered ones.
func ParsePolicy(name string) (Policy, error) {
	if p, ok := current().byName[name]; ok {
		return p, nil
	}
	return Policy{}, fmt.Errorf("policy %q: want %s", name, PolicyNames())
}

// Policies lists the registered policies by ID (IBP, MMP, DP, then the
// others).
func Policies() []Policy { return slices.Clone(current().list) }

// PolicyNames lists the registered policies' names by ID, for messages and
// help texts: "ibp, mmp or dp".
func PolicyNames() string {
	var names []string
	for _, p := range current().list {
		names = append(names, p.d.Name)
	}
	switch len(names) {
	case 0:
		return "a registered policy (none is)"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// policyByID returns the policy of a wire tag's id (the zero Policy if
// none is registered under it).
func policyByID(id uint64) Policy {
	if id > MaxPolicyID {
		return Policy{}
	}
	return current().byID[id]
}

// String is the policy's name ("" for no policy).
func (p Policy) String() string {
	if p.d == nil {
		return ""
	}
	return p.d.Name
}

// Valid says whether p is a registered policy (not the zero Policy).
func (p Policy) Valid() bool { return p.d != nil }

// ID is the policy's stable number (PolicyDef.ID; 0 for no policy).
func (p Policy) ID() int {
	if p.d == nil {
		return 0
	}
	return p.d.ID
}

// DefaultSFMax is the policy's default SF_max (PolicyDef.SFMax): for IBP,
// MMP and DP the SF_max of the paper's Table 3 and simulations (§7.1,
// §7.4), the largest it tests, base^d with d = 2, 4, 3 attributes: 225,
// 256, 216. 0 for no policy.
func (p Policy) DefaultSFMax() int {
	if p.d == nil {
		return 0
	}
	return p.d.SFMax
}

// DefaultBandwidth is the policy's default update limit in bytes per
// second per link (PolicyDef.Bandwidth): for IBP and DP 1 KB/s, for MMP
// 10 KB/s, what §7.4 settles on. 0 for no policy.
func (p Policy) DefaultBandwidth() float64 {
	if p.d == nil {
		return 0
	}
	return p.d.Bandwidth
}

// Deadlines says whether the policy schedules by deadline
// (PolicyDef.Deadlines).
func (p Policy) Deadlines() bool { return p.d != nil && p.d.Deadlines }

// NewExec builds an execution node's local scheduler for the policy, with
// hardware hw, under the options o (with their defaults: Rules.Options).
// Nil for no policy.
func (p Policy) NewExec(hw Hardware, o Options) Exec {
	if p.d == nil {
		return nil
	}
	return p.d.Exec(hw, o)
}

// MarshalText writes the policy's name (JSON records keep "ibp", "mmp",
// "dp").
func (p Policy) MarshalText() ([]byte, error) {
	if p.d == nil {
		return nil, fmt.Errorf("policy: none: want %s", PolicyNames())
	}
	return []byte(p.d.Name), nil
}

// UnmarshalText parses a registered policy's name.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}
