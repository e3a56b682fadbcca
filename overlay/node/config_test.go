package node

import (
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/overlay"
)

// TestConfigValidate: DefaultConfig with an address, a state and
// credentials is valid; each bad value is refused naming the flag of
// `volsched node`.
func TestConfigValidate(t *testing.T) {
	valid := func() Config {
		c := DefaultConfig()
		c.Policy, c.Beta = overlay.PolicyIBP, 0.5
		c.Listen, c.State, c.CA, c.Cert = "127.0.0.1:0", "s", &x509.Certificate{}, tls.Certificate{Certificate: [][]byte{{1}}}
		return c
	}
	if c := valid(); c.Validate() != nil {
		t.Fatalf("the defaults: %v", c.Validate())
	}
	cases := []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Policy = overlay.Policy{} }, "--policy: none given"},
		{func(c *Config) { c.Samples = 1 }, "samples 1: want 2"},
		{func(c *Config) { c.SFMax = -1 }, "--sfmax -1"},
		{func(c *Config) { c.Beta = 0 }, "--beta 0: want a value in (0, 1]"},
		{func(c *Config) { c.Listen = "7946" }, `--listen "7946": want host:port`},
		{func(c *Config) { c.Advertise = "x" }, `--advertise "x"`},
		{func(c *Config) { c.State = "" }, "--state: none given"},
		{func(c *Config) { c.CA = nil }, "--creds:"},
		{func(c *Config) { c.Mem = 0 }, "--mem 0: want a finite value > 0"},
		{func(c *Config) { c.Slots = 1025 }, "--slots 1025: want 1 to 1024"},
		{func(c *Config) { c.Heartbeat = 0 }, "--heartbeat 0s: want 1ms to 1h"},
		{func(c *Config) { c.DeadAfter = time.Second }, "--dead-after 1s: want at least two heartbeats"},
		{func(c *Config) { c.Detect = 3 * time.Second }, "--detect 3s: want at least --dead-after (4s)"},
		{func(c *Config) { c.StartGrace = -time.Second }, "--start-grace -1s"},
		{func(c *Config) { c.Retry = 0 }, "--retry 0s"},
		{func(c *Config) { c.Peers, c.Join = []string{"a:1"}, []string{"b:1"} }, "--join and --peers both given"},
	}
	for _, c := range cases {
		cfg := valid()
		c.change(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestConfigZeroTakeDefaults: New gives the zero fields their defaults (a
// program sets only what it changes): DefaultConfig's, four heart-beats
// for DeadAfter, the policy's summary size and bandwidth.
func TestConfigZeroTakeDefaults(t *testing.T) {
	c := Config{Options: overlay.Options{Policy: overlay.PolicyMMP}, Heartbeat: 2 * time.Second, Bandwidth: -1}.withDefaults()
	d := DefaultConfig()
	if c.Mem != d.Mem || c.Disk != d.Disk || c.Power != d.Power || c.Slots != d.Slots || c.Detect != d.Detect || c.StartGrace != d.StartGrace ||
		c.Retry != d.Retry || c.Heartbeat != 2*time.Second || c.DeadAfter != 8*time.Second || c.SFMax != 256 || c.Beta != 0.5 || c.Bandwidth != 0 ||
		c.Clock == nil || c.Runner == nil {
		t.Errorf("withDefaults: %+v", c)
	}
}
