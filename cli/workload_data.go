package cli

import (
	"fmt"

	"github.com/volsched/volsched/workload"
)

const dataUsage = "folder of the site-level workload's empirical distributions (default: the folder named by $" + workload.DataDirEnv +
	" when set, else the embedded model fitted to them, docs/workload-model.md)"

// siteDistributions returns the site-level workload's distributions: read
// from the folder dir (--data) when given, else workload.DefaultDistributions
// ($VOLSCHED_WORKLOAD_DATA, else the embedded fitted model).
func siteDistributions(dir string) (*workload.Distributions, error) {
	if dir == "" {
		return workload.DefaultDistributions()
	}
	d, err := workload.LoadDistributions(dir)
	if err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	return d, nil
}
