package worker

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/availability"
)

// TestOptionsValidate: the defaults with a master, a token, trust and a
// cache are valid; each bad value is refused naming the flag.
func TestOptionsValidate(t *testing.T) {
	chain := availability.Chain{P: [3][3]float64{{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0.1, 0, 0.9}}}
	valid := func() Options {
		o := DefaultOptions()
		o.Master, o.Token, o.TLS, o.Cache = "https://m:1", "t", &tls.Config{}, "c"
		return o
	}
	if o := valid(); o.Validate() != nil {
		t.Fatalf("the defaults: %v", o.Validate())
	}
	cases := []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Master = "" }, "--master is empty"},
		{func(o *Options) { o.Master = "http://m:1" }, `--master "http://m:1": want an https:// URL`},
		{func(o *Options) { o.Token = "" }, "--token is empty"},
		{func(o *Options) { o.TLS = nil }, "no TLS trust"},
		{func(o *Options) { o.Cache = "" }, "--cache is empty"},
		{func(o *Options) { o.ProbeEvery = 0 }, "--probe-every 0s: want a duration > 0"},
		{func(o *Options) { o.BeatAddr = "x" }, `--udp-heartbeat-addr "x"`},
		{func(o *Options) { o.Probe = &CPUProbe{Threshold: 0} }, "--reclaim-load 0: want a fraction"},
		{func(o *Options) { o.Emulate = &availability.Chain{} }, "--emulate chain"},
		{func(o *Options) { o.Emulate, o.EmulateSlot = &chain, -time.Second }, "--emulate-slot -1s: want ≥ 0"},
		{func(o *Options) { o.Emulate, o.EmulateStart = &chain, availability.Down }, "--emulate-start d needs --emulate-slot"},
		{func(o *Options) { o.Emulate, o.EmulateStationary = &chain, true }, "--emulate-start stationary needs --emulate-slot"},
	}
	for _, c := range cases {
		o := valid()
		c.change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestNewProbe: --reclaim's names, --reclaim-cmd before them, an unknown
// name and a bad load refused.
func TestNewProbe(t *testing.T) {
	if p, err := NewProbe("cpu", 0.3, ""); err != nil || p.(*CPUProbe).Threshold != 0.3 {
		t.Errorf("cpu: %v, %v", p, err)
	}
	if p, err := NewProbe("none", 0, ""); err != nil || p != nil {
		t.Errorf("none: %v, %v", p, err)
	}
	if p, err := NewProbe("whatever", 9, "true"); err != nil || p.(*CmdProbe).Cmd != "true" {
		t.Errorf("--reclaim-cmd: %v, %v", p, err)
	}
	for _, c := range []struct {
		name string
		load float64
		want string
	}{{"gpu", 0.5, `--reclaim "gpu"`}, {"cpu", 1.5, "--reclaim-load 1.5"}} {
		if _, err := NewProbe(c.name, c.load, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want %q", c.name, c.load, err, c.want)
		}
	}
}

// TestStationaryStart: the first state is drawn from the chain's
// stationary distribution (a chain that is always in one state starts
// there, whatever the seed).
func TestStationaryStart(t *testing.T) {
	for want, p := range map[availability.State][3][3]float64{
		availability.Up:        {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}},
		availability.Reclaimed: {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}},
		availability.Down:      {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
	} {
		for seed := range uint64(20) {
			if got := stationaryStart(availability.Chain{P: p}, seed); got != want {
				t.Errorf("chain %v, seed %d: starts %v, want %v", p, seed, got, want)
			}
		}
	}
}
