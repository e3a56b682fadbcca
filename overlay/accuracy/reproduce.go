package accuracy

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"text/tabwriter"

	"github.com/volsched/volsched/overlay"
)

// table2Cells runs Table 2's cells (1024 nodes, every policy and its
// SF_max of PaperSFMax) for seeds seed, seed+1, ..., seed+seeds−1; set
// adjusts each cell's configuration (nil: our defaults). The results are
// in the order policy, SF_max, seed.
func table2Cells(ctx context.Context, seed uint64, seeds int, set func(*Config)) ([]Result, error) {
	var out []Result
	for _, p := range PaperPolicies {
		for _, k := range PaperSFMax[p] {
			for s := range seeds {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				cfg := Config{Policy: p, Nodes: 1024, SFMax: k, Seed: seed + uint64(s)}
				if set != nil {
					set(&cfg)
				}
				r, err := Run(ctx, cfg)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// cellsOf returns the results of cells for policy p with SF_max k and n
// nodes, in the order given.
func cellsOf(cells []Result, p overlay.Policy, k, n int) []Result {
	var out []Result
	for _, r := range cells {
		if r.Policy == p && r.SFMax == k && r.Nodes == n {
			out = append(out, r)
		}
	}
	return out
}

// meanSD is the mean and the (population) standard deviation of attribute
// a over rs.
func meanSD(rs []Result, a string) (m, sd float64) {
	var sum, sq float64
	for _, r := range rs {
		sum += r.Accuracy[a]
		sq += r.Accuracy[a] * r.Accuracy[a]
	}
	n := float64(len(rs))
	m = sum / n
	return m, math.Sqrt(max(0, sq/n-m*m))
}

// printTable2 prints Table 2 (1024 nodes) next to the paper's numbers: one
// seed, or with seeds > 1 the first seed's value and the mean ± sd over
// the seeds.
func printTable2(w io.Writer, seed uint64, seeds int, what string, cells []Result) error {
	if seeds == 1 {
		fmt.Fprintf(w, "Table 2%s: 1024 nodes, accuracy in %% (ours / paper)\n", what)
	} else {
		fmt.Fprintf(w, "Table 2%s: 1024 nodes, accuracy in %% (ours, seed %d; mean ± sd over seeds %d..%d / paper)\n", what, seed, seed, seed+uint64(seeds)-1)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, p := range PaperPolicies {
		ks := PaperSFMax[p]
		fmt.Fprintf(tw, "%s SF_max\t", p)
		for _, k := range ks {
			fmt.Fprintf(tw, "%d\t", k)
		}
		fmt.Fprintln(tw)
		for _, a := range Attributes(p) {
			fmt.Fprintf(tw, "  %s\t", a)
			for _, k := range ks {
				res := cellsOf(cells, p, k, 1024)
				if seeds == 1 {
					fmt.Fprintf(tw, "%.1f / %.1f\t", 100*res[0].Accuracy[a], 100*PaperTable2[p][k][a])
					continue
				}
				m, sd := meanSD(res, a)
				fmt.Fprintf(tw, "%.1f; %.1f ± %.1f / %.1f\t", 100*res[0].Accuracy[a], 100*m, 100*sd, 100*PaperTable2[p][k][a])
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// ReproduceOptions are those of Reproduce.
type ReproduceOptions struct {
	Seed  uint64
	Quick bool // Table 2 with one seed, Table 3 up to 32,768 nodes
	// Progress, when not nil, receives a progress line (a terminal's
	// standard error).
	Progress io.Writer
	// OutDir, when not empty, receives the results: OutDir/ReproductionName/
	// FileName.
	OutDir string
}

// Reproduction is what Reproduce computed: every cell of Tables 2 and 3,
// one Result per seed. It is what reproduce --out keeps
// (overlay-accuracy/accuracy.json) and what the report reads.
type Reproduction struct {
	Seed  uint64 `json:"seed"`  // the first seed
	Seeds int    `json:"seeds"` // seeds of Table 2's cells: Seed, Seed+1, ...
	Quick bool   `json:"quick"`
	// Table2 holds Table 2's cells with our choices, Table2Authors with
	// the authors' (--clustering stars --cells stars; DP: --distance
	// stars); Table3 Table 3's, one seed.
	Table2        []Result `json:"table2"`
	Table2Authors []Result `json:"table2_authors"`
	Table3        []Result `json:"table3"`
	Sizes         []int    `json:"table3_nodes"` // Table 3's sizes run
}

// authorsChoices sets the authors' implementation choices, which build
// the summaries of their own tool (docs/reproduction-004.md).
func authorsChoices(c *Config) {
	c.Clustering, c.Cells = ClusteringStars, CellsStars
	if c.Policy == overlay.PolicyDP {
		c.Distance = DistStars
	}
}

// Reproduce prints Tables 2 and 3 next to the paper's numbers: Table 2
// with our choices and with the authors' (package stars), for seed
// o.Seed and, without Quick, the mean and standard deviation over 10
// seeds; Table 3 up to 131,072 nodes (32,768 with Quick). It returns the
// results. It stops with ctx's error when ctx is cancelled.
func Reproduce(ctx context.Context, w io.Writer, o ReproduceOptions) (*Reproduction, error) {
	pols := PaperPolicies
	fmt.Fprintf(w, "seed %d; node states as in the authors' test: memory U{256..4096} MB, disk U{500..5000} MB, power U{1000..3000} MFLOPS,\n", o.Seed)
	fmt.Fprintf(w, "MMP queue end U{0..2000} s, DP random EDF queues (7 applications on average); distance mse (the authors'),\n")
	fmt.Fprintf(w, "exact clustering (Fig. 3) with the grid; accuracy = (aggregated - minimum)/(total - minimum) (docs/reproduction-004.md);\n")
	fmt.Fprintf(w, "l(δ): time average over [0, 2.2 × the latest breakpoint]. Small SF_max cells vary by several points between seeds.\n\n")
	// Table 2: seed o.Seed; without --quick also the mean and standard
	// deviation over 10 seeds (small SF_max cells vary by several points).
	out := &Reproduction{Seed: o.Seed, Seeds: 1, Quick: o.Quick}
	if !o.Quick {
		out.Seeds = 10
	}
	var err error
	if out.Table2, err = table2Cells(ctx, o.Seed, out.Seeds, nil); err != nil {
		return nil, err
	}
	if err := printTable2(w, o.Seed, out.Seeds, "", out.Table2); err != nil {
		return nil, err
	}
	// The same with the authors' implementation choices.
	fmt.Fprintln(w)
	if out.Table2Authors, err = table2Cells(ctx, o.Seed, out.Seeds, authorsChoices); err != nil {
		return nil, err
	}
	if err := printTable2(w, o.Seed, out.Seeds, " with the authors' choices (--clustering stars --cells stars; dp --distance stars)", out.Table2Authors); err != nil {
		return nil, err
	}
	out.Sizes = PaperTable3Sizes
	if o.Quick {
		out.Sizes = out.Sizes[:4]
	}
	fmt.Fprintf(w, "\nTable 3: accuracy in %% by number of nodes (ours / paper)%s\n",
		map[bool]string{true: "; --quick stops at 32768 nodes", false: ""}[o.Quick])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "policy\tattribute\t")
	for _, n := range out.Sizes {
		fmt.Fprintf(tw, "%d\t", n)
	}
	fmt.Fprintln(tw)
	for _, p := range pols {
		k := PaperTable3SFMax[p]
		var res []Result
		for _, n := range out.Sizes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "\roverlay Table 3: %s, %d nodes...   ", p, n)
			}
			r, err := Run(ctx, Config{Policy: p, Nodes: n, SFMax: k, Seed: o.Seed})
			if err != nil {
				return nil, err
			}
			res = append(res, r)
		}
		out.Table3 = append(out.Table3, res...)
		for _, a := range Attributes(p) {
			fmt.Fprintf(tw, "%s (%d)\t%s\t", p, k, a)
			for i := range out.Sizes {
				fmt.Fprintf(tw, "%.1f / %.1f\t", 100*res[i].Accuracy[a], 100*PaperTable3[p][a][i])
			}
			fmt.Fprintln(tw)
		}
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "\r%40s\r", "")
	}
	if err := tw.Flush(); err != nil {
		return nil, err
	}
	if o.OutDir != "" {
		if err := out.WriteFile(filepath.Join(o.OutDir, ReproductionName)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
