package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"connectrpc.com/connect"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/volsched/volsched/live/livepb"
	"github.com/volsched/volsched/live/livepb/livepbconnect"
)

func init() {
	var masterFlag, token, tokenFile, fingerprint, caFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status --master URL --token T --fingerprint FP",
		Short: "Show a running master's workers, their estimated chains, the progress and the predicted remaining time",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url, err := masterURL(masterFlag)
			if err != nil {
				return err
			}
			tok, err := tokenValue(token, tokenFile)
			if err != nil {
				return err
			}
			tlsCfg, err := clientTLS(fingerprint, caFile)
			if err != nil {
				return err
			}
			hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}, Timeout: 30 * time.Second}
			cl := livepbconnect.NewMasterClient(hc, url)
			req := connect.NewRequest(&livepb.StatusRequest{})
			req.Header().Set("Authorization", "Bearer "+tok)
			ctx, cancel := context.WithTimeout(c.Context(), 30*time.Second)
			defer cancel()
			resp, err := cl.Status(ctx, req)
			if err != nil {
				return fmt.Errorf("%s: %w", url, err)
			}
			if asJSON {
				b, err := protojson.MarshalOptions{Multiline: true, EmitUnpopulated: true}.Marshal(resp.Msg)
				if err != nil {
					return err
				}
				var v any
				json.Unmarshal(b, &v)
				out, _ := json.MarshalIndent(v, "", "  ")
				fmt.Fprintln(c.OutOrStdout(), string(out))
				return nil
			}
			printStatus(c, resp.Msg)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&masterFlag, "master", "", "the master's URL, https://HOST:PORT")
	f.StringVar(&token, "token", "", "a valid worker token (or --token-file, or $VOLSCHED_TOKEN)")
	f.StringVar(&tokenFile, "token-file", "", "file holding the token")
	f.StringVar(&fingerprint, "fingerprint", "", "the master's CA fingerprint")
	f.StringVar(&caFile, "ca", "", "the master's CA certificate, instead of --fingerprint")
	f.BoolVar(&asJSON, "json", false, "print the status as JSON")
	rootCmd.AddCommand(cmd)
}

func printStatus(c *cobra.Command, s *livepb.StatusResponse) {
	w := c.OutOrStdout()
	slot := time.Duration(s.SlotNs)
	fmt.Fprintf(w, "application %s: %s, iteration %d, %d/%d tasks done, %d results accepted in all\n", s.Application, s.Phase, s.Iteration, s.Done, s.Tasks, s.Completions)
	fmt.Fprintf(w, "heuristic %s, slot %v, n_com %d (%d held), measured T_prog %d slots, T_data %d slots\n", s.Heuristic, slot, s.Ncom, s.Held, s.Tprog, s.Tdata)
	if s.PredictedSlots >= 0 {
		fmt.Fprintf(w, "predicted time to finish the iteration (slot simulator, estimated chains): %.1f slots ≈ %v\n", s.PredictedSlots, time.Duration(s.PredictedSlots*float64(slot)).Round(time.Millisecond))
	}
	if s.Error != "" {
		fmt.Fprintf(w, "error: %s\n", s.Error)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "worker\tstate\tprogram\tw_q\tP_uu\tP_ur\tP_ud\tP_ru\tP_rr\tP_rd\tP_du\tP_dr\tP_dd\tobserved\tcopies")
	for _, ws := range s.Workers {
		st := map[livepb.State]string{livepb.State_STATE_UP: "UP", livepb.State_STATE_RECLAIMED: "RECLAIMED", livepb.State_STATE_DOWN: "DOWN"}[ws.State]
		var p []string
		for _, x := range ws.P {
			p = append(p, fmt.Sprintf("%.3f", x))
		}
		prog := "no"
		if ws.HasProgram {
			prog = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.0f\t%s\n", ws.Name, st, prog, ws.W, strings.Join(p, "\t"), ws.Transitions, strings.Join(ws.Copies, ","))
	}
	tw.Flush()
}
