package cli

import (
	"context"
	"io"

	"github.com/volsched/volsched/experiment"
	simcampaign "github.com/volsched/volsched/oversim/campaign"
	"github.com/volsched/volsched/reproduction"
)

func init() {
	registerReproduction(reproduction.Reproduction{
		Name:    simcampaign.ReproductionName,
		Resumes: true,
		Order:   410,
		Title:   "A Task Routing Approach to Large-Scale Scheduling (Celaya & Arronategui) §7.3-7.5, reduced: event-driven simulation - Table 4, Figs. 9, 10, 11, 12-17, 18, catastrophic failure",
		Run: func(ctx context.Context, w io.Writer, opt reproduceOptions) (*reproduction.Section, error) {
			return simcampaign.Reproduce(ctx, w, simcampaign.ReproduceOptions{Quick: opt.Quick, Seed: opt.Seed, OutDir: opt.OutDir,
				Progress: experiment.NewProgress(simcampaign.ReproductionName)})
		},
		Results: simcampaign.ResultsSection,
	})
}
