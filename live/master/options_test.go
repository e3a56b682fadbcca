package master

import (
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/live/manifest"
)

// TestOptionsValidate: DefaultOptions with an application and a state
// directory are valid; each bad value is refused with the flag's name,
// the value and what is wanted.
func TestOptionsValidate(t *testing.T) {
	valid := func() Options {
		o := DefaultOptions()
		o.App, o.State = &manifest.App{}, "state"
		return o
	}
	if o := valid(); o.Validate() != nil {
		t.Fatalf("the defaults: %v", o.Validate())
	}
	cases := []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.App = nil }, "--app: no application"},
		{func(o *Options) { o.State = "" }, "--state: none given"},
		{func(o *Options) { o.Listen = "" }, "--listen: empty"},
		{func(o *Options) { o.NCom = 0 }, "--ncom 0: want ≥ 1"},
		{func(o *Options) { o.Slot = 0 }, "--slot 0s: want a duration > 0"},
		{func(o *Options) { o.Heartbeat = -time.Second }, "--heartbeat -1s: want a duration > 0"},
		{func(o *Options) { o.DownAfter = time.Second }, "--down-after 1s: want more than --heartbeat 1s"},
		{func(o *Options) { o.DownAfter = -time.Second }, "--down-after -1s"},
		{func(o *Options) { o.ExtraReplicas = -1 }, "--replicas -1: want 0..64"},
		{func(o *Options) { o.Rate = -1 }, "--rate -1: want ≥ 0"},
		{func(o *Options) { o.MaxResult = 0 }, "largest result 0 bytes: want > 0"},
		{func(o *Options) { o.Heuristic = Heuristic{} }, "--heuristic: heuristic: none"},
	}
	for _, c := range cases {
		o := valid()
		c.change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestOptionsZeroTakeDefaults: New gives the zero options that cannot be
// zero their defaults (a program sets only what it changes); the ones that
// can be zero stay zero; DownAfter 0 is 5 heart-beats.
func TestOptionsZeroTakeDefaults(t *testing.T) {
	o := Options{App: &manifest.App{}, State: "s", Heartbeat: 2 * time.Second}.withDefaults()
	d := DefaultOptions()
	if o.Listen != d.Listen || o.Heuristic != d.Heuristic || o.NCom != d.NCom || o.Slot != d.Slot || o.MaxResult != d.MaxResult ||
		o.Heartbeat != 2*time.Second || o.DownAfter != 10*time.Second || o.ExtraReplicas != 0 || o.Seed != 0 || o.Logger == nil {
		t.Errorf("withDefaults: %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
}
