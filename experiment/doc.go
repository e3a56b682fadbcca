// Package experiment runs simulation campaigns that can be resumed,
// sharded across machines and merged, with results that do not depend on
// the number of workers, and holds the small tools the reproductions share
// (Kendall's τ, text tables, CSV, SVG line plots).
//
// # Campaigns
//
// A campaign is a Manifest — its Kind (e.g. "independent"), its Seed, its
// number of Units, its kind-specific Params as canonical JSON, and the
// Shard a directory holds — and a function unit → result. A unit is the
// smallest piece of work whose random streams depend only on (seed, unit,
// …), typically one scenario with all its trials and heuristics:
//
//	params, _ := experiment.CanonicalJSON(myParams) // what makes results differ
//	m := experiment.Manifest{Kind: "independent", Seed: seed, Units: n,
//		Params: params, Shard: shard}
//	err := experiment.Run(ctx, dir, m, workers,
//		func(ctx context.Context, unit int) (MyResult, error) {
//			rng := stream.New(seed, uint64(unit), ...)
//			...
//		}, experiment.NewProgress("independent"))
//	if errors.Is(err, experiment.ErrInterrupted) { ... } // resumable
//	m, results, err := experiment.LoadComplete[MyResult](dir) // ordered by unit
//	// or, with the params decoded into MyParams and validated:
//	m, p, results, err := experiment.LoadCampaign[MyParams, MyResult](dir, "independent")
//
// Run writes dir/manifest.json and appends one line {"unit": u, "result":
// R} per finished unit to dir/results-<i>-of-<n>.jsonl. R is encoded with
// encoding/json: give it exported fields; float64 values round-trip
// exactly, but NaN and ±Inf cannot be encoded (Run fails on that unit), so
// represent a failure explicitly (a bool, a count, a capped value).
// Running it again on the same directory skips the units already there, so
// an interrupted or crashed run resumes where it stopped; a directory made
// for another campaign or shard is refused with an error naming the field
// that differs.
//
// Shards are numbered from 1 ("i/n", 1 ≤ i ≤ n, as in Slurm's
// --array=1-n; with HTCondor use $(Process)+1): unit u belongs to shard
// (u mod n)+1. Use one directory per shard; Merge (volsched exp merge)
// checks that the shards' manifests agree and that duplicated units are
// identical, and writes a directory that looks exactly like the one an
// unsharded run (shard 1/1) leaves, so summaries are computed the same way.
//
// Summaries must be computed from the results ordered by unit (as Load
// returns them), never in completion order, so that they are bit-identical
// whatever the number of workers and shards. Grid maps unit numbers to
// combinations of parameters and back.
//
// The command-line side (cli/exp.go) gives campaign commands the
// shared flags --seed, --workers, --shard and --out, runs them through Run,
// and calls the summarizer registered for the kind once all units are
// there: after an unsharded run, or after `volsched exp merge`.
//
// # Tools for the reproductions
//
// KendallTau (τ-b, ties handled) compares our ranking of heuristics with a
// paper's; Table prints "ours | paper" tables aligned for terminals, as
// Markdown for the reports, or as CSV; WriteCSVFile and WriteJSONFile write
// files atomically. Figures are drawn by package figure.
package experiment
