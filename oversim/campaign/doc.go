// Package campaign is the experiment side of the overlay simulator
// (package oversim): the run directory that `volsched overlay sim` writes
// (summary.json, timeline.csv, checkpoint.bin) and reads back, the paper's
// figures made from run directories (Figs. 9–18 of "A Decentralized
// Scheduling Model for Heterogeneous Volatile Resources", §7.3–7.5), its
// Table 4, and the reduced reproduction (`volsched reproduce --only
// overlay-sim`) as an experiment campaign with one unit per simulation.
//
// The run directory is defined here once: RunDir writes it, ReadRun,
// ParseSummary and ReadMakespanTimeline read it, and the figure functions
// (SFMaxFigure, SizeFigure, FailureFigure) take run directories as
// arguments. The reduced reproduction draws its figures with the same code
// from the results of its campaign, so that the reduced runs and the
// full-size runs are drawn the same way.
//
// Errors caused by what the caller gave (a directory that is not a run, or
// holds another run; runs a figure cannot combine) are *InputError; the
// command line exits with status 2 for them.
//
// docs/overlay-sim.md describes the simulator and the run directory,
// docs/reproduction-004.md the results.
package campaign
