package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/internal/jsonnum"
	"github.com/volsched/volsched/trace"
)

func init() {
	traceCmd := &cobra.Command{
		Use:   "trace",
		Short: "Availability traces (Failure Trace Archive format): fit, generate",
	}
	var rate float64
	var mk markovFlags
	fit := &cobra.Command{
		Use:   "fit FILE",
		Short: "Fit exponential, Weibull and log-normal to a trace's availability intervals (MLE, KS)",
		Long: `fit reads an FTA event_trace.tab (tab-separated: event_id component_id
node_id platform_id node_name event_type event_start_time event_stop_time
event_end_reason; event_type 1 = available, 0 = unavailable; epoch seconds;
'-' reads standard input), takes the durations of its availability events
(times --rate, e.g. operations per second), and prints the
maximum-likelihood fits with the Kolmogorov–Smirnov statistic as JSON.
The KS p-values ignore that the parameters were fitted to the same data
(they are too high; a Lilliefors correction would lower them).

With --slot S, it also tests the Markov assumption (docs/whatif.md): the
trace is cut into slots of S seconds (a slot takes the worst state it
contains; unavailability is --unavailable, time between events DOWN), each
host's 3-state chain is estimated from all its slots (the default prior),
and the complete sojourns in each state are compared with the geometric
law the chain implies (discrete KS statistic, conservative p-value), per
host and pooled, under "markov".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !(rate > 0) || math.IsInf(rate, 0) {
				return usagef("--rate %v: want a finite number > 0", rate)
			}
			if err := mk.check(); err != nil {
				return err
			}
			data, source, err := readInput(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			tr, err := trace.ReadFTA(bytes.NewReader(data), source)
			if err != nil {
				return err
			}
			d := tr.AvailabilityDurations()
			for i := range d {
				x := d[i] * rate
				if d[i] > 0 && !(x >= 0x1p-1000 && x <= 0x1p1000) {
					return usagef("--rate %g: a duration of %g s becomes %g, out of the range the fits handle (2^-1000 to 2^1000)", rate, d[i], x)
				}
				d[i] = x
			}
			fits, err := trace.FitAll(d)
			if err != nil {
				return fmt.Errorf("%s: %w", source, err)
			}
			markov, err := mk.report(tr, source)
			if err != nil {
				return err
			}
			type fitJSON struct { // trace.Fit by the JSON convention (null: not finite)
				Name   string          `json:"name"`
				Params []jsonnum.Float `json:"params"`
				LogLik jsonnum.Float   `json:"log_likelihood"`
				KS     jsonnum.Float   `json:"ks"`
				KSP    jsonnum.Float   `json:"ks_p"`
				N      int             `json:"samples"`
			}
			var fj []fitJSON
			for _, f := range fits {
				fj = append(fj, fitJSON{f.Name, jsonnum.Floats(f.Params), jsonnum.Float(f.LogLik), jsonnum.Float(f.KS), jsonnum.Float(f.KSP), f.N})
			}
			out := struct {
				Trace     string                     `json:"trace"`
				Hosts     int                        `json:"hosts"`
				Start     float64                    `json:"start"`
				End       float64                    `json:"end"`
				Rate      float64                    `json:"rate"`
				Intervals int                        `json:"intervals"`
				Fits      []fitJSON                  `json:"fits"`
				Markov    *availability.MarkovReport `json:"markov,omitempty"`
			}{source, len(tr.Nodes), tr.Start, tr.End, rate, len(d), fj, markov}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	fit.Flags().Float64Var(&rate, "rate", 1, "multiply durations by this (e.g. operations per second)")
	fit.Flags().Float64Var(&mk.slot, "slot", 0, "slot length in seconds for the test of the Markov assumption (0: no test)")
	fit.Flags().StringVar(&mk.unavailable, "unavailable", "down", "state of the trace's unavailability events for the Markov test: down or reclaimed")

	var preset, out string
	var seed uint64
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate a synthetic FTA trace from the paper's Table 1 fits (ucb, entropia)",
		Long: `gen writes a synthetic availability trace in FTA format: each host alternates
log-normal availability intervals (Table 1 of seed 003, in operations,
converted to seconds at the preset's rate) and exponential unavailability
intervals (mean one hour; the paper gives no model of them).

  ucb       80 hosts, 46 days, µ = 16.42, σ = 2.419
  entropia  232 hosts, 30 days, µ = 18.76, σ = 2.188`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := trace.PresetByName(preset)
			if err != nil {
				return usagef("--preset: %v", err)
			}
			tr := trace.Generate(p, seed)
			comment := fmt.Sprintf("synthetic %s trace (volsched trace gen --preset %s --seed %d): %d hosts, %.0f days,\nlog-normal availability µ=%g σ=%g (operations) at %.6g ops/s, exponential unavailability mean %g s",
				p.Name, p.Name, seed, p.Hosts, p.Seconds/86400, p.Mu, p.Sigma, p.OpsPerSecond, p.DownMean)
			w := cmd.OutOrStdout()
			if out != "" && out != "-" {
				var b bytes.Buffer
				if err := trace.WriteFTA(&b, tr, comment); err != nil {
					return err
				}
				return os.WriteFile(out, b.Bytes(), 0o644)
			}
			return trace.WriteFTA(w, tr, comment)
		},
	}
	gen.Flags().StringVar(&preset, "preset", "ucb", "ucb or entropia")
	gen.Flags().Uint64Var(&seed, "seed", 1, "seed")
	gen.Flags().StringVar(&out, "out", "", "file to write (default standard output)")

	traceCmd.AddCommand(stopsAtOnce(fit), stopsAtOnce(gen))
	rootCmd.AddCommand(traceCmd)
}

// markovFlags are trace fit's options for the test of the Markov
// assumption.
type markovFlags struct {
	slot        float64
	unavailable string
}

func (m markovFlags) check() error {
	if math.IsNaN(m.slot) || math.IsInf(m.slot, 0) || m.slot < 0 {
		return usagef("--slot %v: want a finite number of seconds > 0 (0: no Markov test)", m.slot)
	}
	if m.unavailable != "down" && m.unavailable != "reclaimed" {
		return usagef("--unavailable %q: want down or reclaimed", m.unavailable)
	}
	return nil
}

// report runs the test (nil when --slot is 0).
func (m markovFlags) report(tr *trace.Trace, source string) (*availability.MarkovReport, error) {
	if m.slot == 0 {
		return nil, nil
	}
	un, _ := availability.ParseState(m.unavailable)
	sl, err := tr.States(un).Slots(m.slot, availability.Down)
	if err != nil {
		return nil, fmt.Errorf("%s: --slot %v: %w", source, m.slot, err)
	}
	return availability.ReportMarkov(sl, un)
}
