package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/reproduction"
)

func init() {
	var out string
	cmd := &cobra.Command{
		Use:   "report [RESULTS_DIR]",
		Short: "Write the report page of the committed full runs (results/), running nothing",
		Long: `report reads the full runs the repository keeps in RESULTS_DIR (default:
results) and writes the reproduction report of them: RESULTS_DIR/report/index.html
(or --out DIR) with, per paper, each table beside the published one, each
figure, the model choices and the commands with their run times. Nothing is
run: the tables and figures come from the committed summaries.

The page in results/report/ is committed; a test regenerates it and fails when
it differs, so run 'volsched report results/' after changing the results or
the code that draws them. 'volsched reproduce --quick --report DIR' makes the
same page from a fresh, reduced run.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "results"
			if len(args) == 1 {
				root = args[0]
			}
			file, missing, err := reproduction.WriteResults(root, out, reproductions)
			if err != nil {
				return err
			}
			if len(missing) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "no section from committed results: %v\n", missing)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", file)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory of the page (default: RESULTS_DIR/report)")
	rootCmd.AddCommand(cmd)
}
