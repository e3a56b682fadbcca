// Command run runs the heuristics of package guard as a program of one's
// own would: GUARD* in the slot simulator of seed 001 on an instance of the
// §7 generator, beside EMCT* and EMCT, each schedule checked against the
// model's rules (slotsim.Check); then GUARD* and IE+IP with a few of the
// papers' heuristics on the what-if example's platform, through the engine
// of `volsched simulate` (whatif/simulate). From the repository's root:
//
//	go run ./examples/own-heuristic/run
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/examples/own-heuristic/guard"
	"github.com/volsched/volsched/iterative"
	"github.com/volsched/volsched/iterative/slotsim"
	"github.com/volsched/volsched/stream"
	"github.com/volsched/volsched/whatif"
	"github.com/volsched/volsched/whatif/simulate"
)

func main() {
	dir := flag.String("whatif", filepath.Join("examples", "whatif"), "directory of the what-if example (platform.json, independent.json, coupled.json)")
	trials := flag.Int("trials", 20, "trials of the what-if runs")
	flag.Parse()
	if err := run(os.Stdout, *dir, *trials); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		os.Exit(1)
	}
}

// run writes the slot simulator's makespans and the two what-if reports.
func run(w io.Writer, dir string, trials int) error {
	// An instance of the §7 generator: 20 workers with random chains,
	// w_q in 1..10, T_prog = 5, T_data = 1, n_com = 5, 10 tasks × 10
	// iterations.
	rng := stream.New(1)
	in := &iterative.Instance{TProg: 5, TData: 1, NCom: 5, Tasks: 10, Iterations: 10}
	for q := 0; q < 20; q++ {
		in.Chains = append(in.Chains, availability.Random(rng))
		in.W = append(in.W, 1+rng.IntN(10))
	}
	opt := iterative.DefaultOptions()
	sim, err := slotsim.New(in, opt)
	if err != nil {
		return err
	}
	real := slotsim.Realize(availability.ChainSources(in.Chains, opt.Initial, stream.New(2))) // one realization for all
	fmt.Fprintln(w, "slot simulator, one availability realization of a §7 instance (20 workers, 10 tasks × 10 iterations):")
	for _, h := range []iterative.Heuristic{guard.Heuristic, iterative.EMCTStar, iterative.EMCT} {
		var log []slotsim.Event
		sim.Log = &log
		ms, err := sim.Run(h, real, stream.New(3, h.Stream()))
		if err != nil {
			return err
		}
		if err := slotsim.Check(in, opt.ExtraReplicas, real, ms, log); err != nil {
			return fmt.Errorf("%v: the schedule breaks the model: %w", h, err)
		}
		fmt.Fprintf(w, "  %-6v makespan %d slots (schedule checked: %d events)\n", h, ms, len(log))
	}
	for _, c := range []struct {
		app        string
		heuristics []string
	}{
		{"independent.json", []string{guard.Heuristic.String(), "EMCT*", "EMCT", "UD*", "RANDOM2W"}},
		{"coupled.json", []string{guard.Coupled.Name, "IE", "IP", "IAY", "E-IAY"}},
	} {
		p, a, err := load(filepath.Join(dir, "platform.json"), filepath.Join(dir, c.app))
		if err != nil {
			return err
		}
		res, err := simulate.Run(context.Background(), p, a, simulate.Options{Heuristics: c.heuristics, Trials: trials, Seed: 1})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nvolsched simulate's engine on %s with %s:\n", filepath.Join(dir, "platform.json"), c.app)
		if err := res.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// load reads a what-if platform (with its traces) and application.
func load(platform, app string) (*whatif.Platform, *whatif.Application, error) {
	data, err := os.ReadFile(platform)
	if err != nil {
		return nil, nil, err
	}
	p, err := whatif.ParsePlatform(data, platform)
	if err != nil {
		return nil, nil, err
	}
	if err := p.LoadTraces(whatif.DirReader(filepath.Dir(platform))); err != nil {
		return nil, nil, err
	}
	if data, err = os.ReadFile(app); err != nil {
		return nil, nil, err
	}
	a, err := whatif.ParseApplication(data, app)
	return p, a, err
}
