package whatif

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/trace"
)

// DirReader reads the files a platform names relative to dir (the
// platform file's directory); absolute names are read as they are.
func DirReader(dir string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return os.ReadFile(name)
	}
}

// LoadTraces reads the platform's trace files through read (called with
// each file name as the platform writes it), cuts them into slots of
// SlotSeconds and resolves the workers' hosts. It checks that every named
// host exists and that each trace has enough hosts for the workers that
// replay it (fixed hosts plus those drawn at each trial, all distinct).
func (p *Platform) LoadTraces(read func(file string) ([]byte, error)) error {
	for t := range p.Traces {
		tr := &p.Traces[t]
		where := fmt.Sprintf("%s: traces.%s", p.Source, tr.Name)
		data, err := read(tr.File)
		if err != nil {
			return fmt.Errorf("%s: file %q: %w", where, tr.File, err)
		}
		var st *availability.StateTrace
		if tr.Format == "csv" {
			if st, err = availability.ReadStateCSV(bytes.NewReader(data), tr.File); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		} else {
			fta, err := trace.ReadFTA(bytes.NewReader(data), tr.File)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			st = fta.States(tr.Unavailable)
		}
		if tr.Slots, err = st.Slots(p.SlotSeconds, tr.Gap); err != nil {
			return fmt.Errorf("%s: %s: %w", where, tr.File, err)
		}
	}
	fixed := make([]int, len(p.Traces))
	drawn := make([]int, len(p.Traces))
	for q := range p.Workers {
		a, ok := p.Workers[q].Avail.(TraceAvail)
		if !ok {
			continue
		}
		if a.Host == "" {
			a.HostIndex = -1
			drawn[a.Trace]++
		} else {
			h, err := p.Traces[a.Trace].Slots.Find(a.Host)
			if err != nil {
				return fmt.Errorf("%s: workers[%d] (%s): trace %s: %w", p.Source, p.Workers[q].Entry, p.Workers[q].Name, p.Traces[a.Trace].Name, err)
			}
			a.HostIndex = h
			fixed[a.Trace]++
		}
		p.Workers[q].Avail = a
	}
	// Two names (an ID and a name) may denote the same host.
	for t := range p.Traces {
		seen := map[int]string{}
		for q := range p.Workers {
			a, ok := p.Workers[q].Avail.(TraceAvail)
			if !ok || a.Trace != t || a.HostIndex < 0 {
				continue
			}
			if other, ok := seen[a.HostIndex]; ok {
				return fmt.Errorf("%s: workers %s and %s replay the same host of trace %s", p.Source, other, p.Workers[q].Name, p.Traces[t].Name)
			}
			seen[a.HostIndex] = p.Workers[q].Name
		}
		if n := p.Traces[t].Slots.Hosts(); fixed[t]+drawn[t] > n {
			return fmt.Errorf("%s: traces.%s: %d workers replay fixed hosts and %d draw theirs at each trial, but %s has %d hosts, want at least %d", p.Source, p.Traces[t].Name, fixed[t], drawn[t], p.Traces[t].File, n, fixed[t]+drawn[t])
		}
	}
	return nil
}
