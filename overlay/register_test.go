package overlay

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// wireTestSummary is the summary of wireTestPolicy: per function, its v.
type wireTestSummary []int32

func (s wireTestSummary) Nodes() int {
	n := 0
	for _, v := range s {
		n += int(v)
	}
	return n
}
func (s wireTestSummary) Len() int     { return len(s) }
func (s wireTestSummary) Bytes() int   { return 4 * len(s) }
func (wireTestSummary) Policy() Policy { return wireTestPolicy }

type wireTestCodec struct{}

func (wireTestCodec) Flag(s Summary) bool { return len(s.(wireTestSummary))%2 == 1 }
func (wireTestCodec) Append(e *Encoder, s Summary) {
	e.Uvarint(uint64(len(s.(wireTestSummary))))
	for _, v := range s.(wireTestSummary) {
		e.Uvarint(uint64(v))
	}
}
func (wireTestCodec) Read(d *Decoder, flag bool) Summary {
	s := make(wireTestSummary, d.Count("functions", 1))
	for i := range s {
		s[i] = int32(d.Uvarint("v", math.MaxInt32))
	}
	if d.Err() == nil && flag != (len(s)%2 == 1) {
		d.Fail("flag %v for %d functions", flag, len(s))
	}
	return s
}
func (wireTestCodec) Validate(s Summary) error {
	if err := validCount(s.Len()); err != nil {
		return err
	}
	for i, v := range s.(wireTestSummary) {
		if err := validV(i, v); err != nil {
			return err
		}
	}
	return nil
}

type wireTestRules struct{ o Options }

func (r *wireTestRules) Policy() Policy   { return wireTestPolicy }
func (r *wireTestRules) Options() Options { return r.o }
func (r *wireTestRules) Aggregate(x, y Summary) Summary {
	if x == nil && y == nil {
		return nil
	}
	var s wireTestSummary
	for _, z := range []Summary{x, y} {
		if z != nil {
			s = append(s, z.(wireTestSummary)...)
		}
	}
	return s
}
func (r *wireTestRules) Equal(x, y Summary) bool {
	a, _ := x.(wireTestSummary)
	b, _ := y.(wireTestSummary)
	return slices.Equal(a, b)
}
func (r *wireTestRules) Forward(_ *Fork, req Request, _ float64) Split { return Split{Father: req.N} }
func (r *wireTestRules) MaxQueue(Summary) float64                      { return math.Inf(-1) }

// wireTestPolicy is registered by this test binary only, with an ID whose
// tag takes two bytes and a codec that uses the tag's flag.
var wireTestPolicy = MustRegisterPolicy(PolicyDef{Name: "wire-test", ID: 100, SFMax: 8, Bandwidth: 1000,
	Rules: func(o Options) (Rules, error) { return &wireTestRules{o: o}, nil },
	Exec:  func(hw Hardware, _ Options) Exec { return &IBPExec{Mem: hw.Mem, Disk: hw.Disk, Power: hw.Power} },
	Codec: wireTestCodec{}})

// TestPolicyRegistry: the paper's policies are registered under their
// names and IDs, found by name, listed by ID; an unknown name is an error
// naming it and the registered ones.
func TestPolicyRegistry(t *testing.T) {
	for i, want := range []struct {
		name     string
		id, sf   int
		bw       float64
		deadline bool
	}{{"ibp", 1, 225, 1000, false}, {"mmp", 2, 256, 10000, false}, {"dp", 3, 216, 1000, true}} {
		p, err := ParsePolicy(want.name)
		if err != nil || p != builtins[i] {
			t.Fatalf("ParsePolicy(%q) = %v, %v: want %v", want.name, p, err, builtins[i])
		}
		if p.String() != want.name || p.ID() != want.id || p.DefaultSFMax() != want.sf || p.DefaultBandwidth() != want.bw || p.Deadlines() != want.deadline {
			t.Errorf("%s: id %d, SF_max %d, bandwidth %g, deadlines %v: want %+v", p, p.ID(), p.DefaultSFMax(), p.DefaultBandwidth(), p.Deadlines(), want)
		}
		r, err := NewRules(DefaultOptions(p))
		if err != nil || r.Policy() != p {
			t.Errorf("%s: NewRules gives %v, %v", p, r, err)
		}
	}
	if got := Policies(); len(got) < 4 || !slices.Equal(got[:3], builtins) || got[len(got)-1] != wireTestPolicy {
		t.Errorf("Policies() = %v: want ibp, mmp, dp first and wire-test (id 100) last", got)
	}
	_, err := ParsePolicy("ibq")
	if err == nil || !strings.Contains(err.Error(), `"ibq"`) || !strings.Contains(err.Error(), "ibp, mmp, dp") {
		t.Errorf("ParsePolicy(ibq): %v, want an error naming ibq and the registered policies", err)
	}
	if err := (Options{}).Validate(); err == nil || !strings.Contains(err.Error(), "policy") || !strings.Contains(err.Error(), "ibp") {
		t.Errorf("options without a policy: %v", err)
	}
	var zero Policy
	if zero.Valid() || zero.NewExec(Hardware{}, Options{}) != nil {
		t.Errorf("the zero Policy is valid or builds an executor")
	}
}

// TestRegisterPolicyRefuses: a definition with a field missing or out of
// range, a name or an ID already taken are refused, naming what is wrong;
// nothing is registered.
func TestRegisterPolicyRefuses(t *testing.T) {
	good := PolicyDef{Name: "refused", ID: 200, SFMax: 9, Bandwidth: 1,
		Rules: func(o Options) (Rules, error) { return nil, nil }, Exec: func(Hardware, Options) Exec { return nil }, Codec: wireTestCodec{}}
	for _, c := range []struct {
		change func(d *PolicyDef)
		want   string
	}{
		{func(d *PolicyDef) { d.Name = "ibp" }, `"ibp": already registered (id 1)`},
		{func(d *PolicyDef) { d.ID = 2 }, `id 2 is already policy "mmp"'s`},
		{func(d *PolicyDef) { d.Name = "IBP2" }, `name "IBP2"`},
		{func(d *PolicyDef) { d.Name = "" }, `name ""`},
		{func(d *PolicyDef) { d.Name = "2ibp" }, `name "2ibp"`},
		{func(d *PolicyDef) { d.Name = "a-policy-too-long" }, "1 to 16"},
		{func(d *PolicyDef) { d.ID = 0 }, "id 0: want 1 to 255"},
		{func(d *PolicyDef) { d.ID = 256 }, "id 256"},
		{func(d *PolicyDef) { d.SFMax = 0 }, "SF_max 0"},
		{func(d *PolicyDef) { d.Bandwidth = math.Inf(1) }, "bandwidth +Inf"},
		{func(d *PolicyDef) { d.Codec = nil }, "Codec"},
		{func(d *PolicyDef) { d.Rules = nil }, "Rules"},
	} {
		d := good
		c.change(&d)
		if _, err := RegisterPolicy(d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", d, err, c.want)
		}
	}
	if _, err := ParsePolicy("refused"); err == nil {
		t.Errorf("a refused definition was registered")
	}
}

// TestPolicyText: a policy is its name in JSON records; an unknown name
// and the zero Policy are refused.
func TestPolicyText(t *testing.T) {
	type rec struct {
		Policy Policy `json:"policy"`
	}
	for _, p := range Policies() {
		b, err := json.Marshal(rec{p})
		if err != nil || string(b) != `{"policy":"`+p.String()+`"}` {
			t.Fatalf("%s: %s, %v", p, b, err)
		}
		var r rec
		if err := json.Unmarshal(b, &r); err != nil || r.Policy != p {
			t.Fatalf("%s: read back %v, %v", p, r.Policy, err)
		}
	}
	var r rec
	if err := json.Unmarshal([]byte(`{"policy":"xyz"}`), &r); err == nil || !strings.Contains(err.Error(), `"xyz"`) {
		t.Errorf("unknown policy: %v", err)
	}
	if _, err := json.Marshal(rec{}); err == nil {
		t.Errorf("the zero Policy marshalled")
	}
}

// TestSummaryTag: the tag is a bijection of (ID, flag) onto the nonzero
// uvarints that encode an ID of 1 to MaxPolicyID; IBP, MMP and DP (IDs 1
// to 3) keep the first layout's byte, ID | spreads<<2.
func TestSummaryTag(t *testing.T) {
	seen := map[uint64]bool{}
	for id := 1; id <= MaxPolicyID; id++ {
		for _, flag := range []bool{false, true} {
			tag := summaryTag(id, flag)
			if tag == 0 || seen[tag] {
				t.Fatalf("id %d flag %v: tag %d taken", id, flag, tag)
			}
			seen[tag] = true
			if gid, gflag := tagPolicy(tag); gid != uint64(id) || gflag != flag {
				t.Fatalf("tag %d of id %d, flag %v reads id %d, flag %v", tag, id, flag, gid, gflag)
			}
			if id <= 3 {
				want := uint64(id)
				if flag {
					want |= 4
				}
				if tag != want {
					t.Errorf("id %d flag %v: tag %d, want the first layout's %d", id, flag, tag, want)
				}
			}
		}
	}
}

// TestWireBuiltinsUnchanged: messages of the paper's policies are the
// bytes the wire form's first layout wrote (computed with it), and decode
// to what was sent: a deployed daemon and this build read each other.
func TestWireBuiltinsUnchanged(t *testing.T) {
	p, err := newMMP(2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	agg := p.Aggregate(MMPSummary{{Mem: 512, Disk: 100, Power: 1000, V: 1, Q: 30}, {Mem: 1024, Disk: 200, Power: 1500, V: 1, Q: 60}},
		MMPSummary{{Mem: 2048, Disk: 300, Power: 2000, V: 1, Q: 10}})
	if _, ok := agg.(*spreadSummary[MMPSummary, MMPCluster]); !ok {
		t.Fatalf("the aggregate carries no spreads: %T", agg)
	}
	for _, c := range []struct {
		m    Msg
		want string
	}{
		{Msg{Kind: KindUpdate, From: 2, To: 1, Sum: IBPSummary{{Mem: 512, Disk: 1024, V: 3}, {Mem: 2048, Disk: 4096, V: 1}}},
			"010204020102000000440000804403000000450000804501"},
		{Msg{Kind: KindUpdate, From: 2, To: 1, Sum: agg},
			"010204020602000000440000c84200007a44020000000000004e400000004400008048000000440000c84200401c460000c8420000fa43002474480000fa430000f041000061440000f04100000045000096430000fa44010000000000002440000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
		{Msg{Kind: KindUpdate, From: 5, To: 0, Sum: DPSummary{{Mem: 512, Disk: 1024, V: 2, L: LFunc{P: []LPoint{{T: 10, L: 0}, {T: 30, L: 2e4}}, Slope: 1000}}}},
			"01020a0003010000004400008044020000000000408f4002000000000000244000000000000000000000000000003e40000000000088d340"},
		{Msg{Kind: KindUpdate, From: 7, To: 3}, "01020e0600"},
		{Msg{Kind: KindBound, From: 0, To: 1, Bound: math.Inf(-1)}, "01030002000000000000f0ff"},
		{Msg{Kind: KindRequest, From: 4, To: 1, Req: Request{App: App{ID: 9, Length: 1e6, Mem: 1, Disk: 2, Deadline: 7200}, Submitter: 4, Src: NoAddr, N: 12}},
			"01010802090000000080842e41000000000000f03f0000000000000040000000000020bc4008010c"},
	} {
		b, err := AppendMsg(nil, &c.m)
		if err != nil || hex.EncodeToString(b) != c.want {
			t.Errorf("%s message: %x (%v)\nwant %s", c.m.Kind, b, err, c.want)
			continue
		}
		roundTrip(t, &c.m)
	}
}

// TestWireOtherPolicy: a summary of a policy registered outside the
// paper's (ID 100: a two-byte tag) travels like the built-in ones, its
// codec's flag included; a tag whose ID no policy holds is refused,
// naming it and the registered ones.
func TestWireOtherPolicy(t *testing.T) {
	for _, s := range []wireTestSummary{{1}, {3, 1}, {7, 7, 7}} {
		m := Msg{Kind: KindUpdate, From: 3, To: 1, Sum: s}
		b := roundTrip(t, &m)
		tag := summaryTag(100, len(s)%2 == 1)
		if tag < 128 || !bytes.Equal(b[4:6], []byte{byte(tag) | 0x80, byte(tag >> 7)}) {
			t.Errorf("%v: %x: want the two-byte tag %d after the header", s, b, tag)
		}
	}
	if _, err := AppendMsg(nil, &Msg{Kind: KindUpdate, Sum: wireTestSummary{0}}); err == nil || !strings.Contains(err.Error(), "nodes") {
		t.Errorf("a summary its codec refuses: %v", err)
	}
	b, _ := AppendMsg(nil, &Msg{Kind: KindUpdate, From: 3, To: 1, Sum: wireTestSummary{1, 2}})
	other := summaryTag(101, false)
	b = append(append(b[:4:4], byte(other)|0x80, byte(other>>7)), b[6:]...)
	if _, err := DecodeMsg(b); err == nil || !strings.Contains(err.Error(), "policy 101 is not registered") || !strings.Contains(err.Error(), "wire-test 100") {
		t.Errorf("a tag of an unregistered ID: %v", err)
	}
}
