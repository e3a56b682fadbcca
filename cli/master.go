package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/manifest"
	"github.com/volsched/volsched/live/master"
	"github.com/volsched/volsched/whatif/simulate"
)

func init() {
	o := master.DefaultOptions()
	var appDir, logLevel, logFormat, pprofAddr string
	var udpBeats bool
	cmd := &cobra.Command{
		Use:   "master --app DIR --state DIR",
		Short: "Run an application on volatile workers, scheduled live by the seed-001 heuristics",
		Long: `master runs the iterative application in --app (a directory with a
volsched.toml manifest: see docs/runtime.md) on the workers that connect to it,
deciding where tasks go with one of the 17 heuristics of seed 001 §6 (the
same decision code the simulator uses), or with a heuristic a program
registered (a volsched binary built with it linked in: docs/extending.md).

On first start it creates its CA and certificate in --state and prints the
CA fingerprint, which workers pin (--fingerprint). Workers need a token:
'volsched master token add NAME --state DIR'. Everything durable (progress,
every result, the workers' estimated chains) is in --state/master.db; a
master killed and started again with the same command continues. The final
output is in --state/output; the workers' availability as an FTA trace in
--state/availability.fta; every event in --state/events.jsonl.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if appDir == "" {
				return usagef("master: --app is required (the application's directory)")
			}
			app, err := manifest.Load(appDir)
			if err != nil {
				return err
			}
			o.App, o.NoUDPBeats, o.Predictor = app, !udpBeats, slotPredictor()
			if err := o.Validate(); err != nil {
				return usagef("%v", err)
			}
			log, err := newLogger(logLevel, logFormat)
			if err != nil {
				return err
			}
			o.Logger = log
			if pprofAddr != "" {
				if err := servePprof(pprofAddr); err != nil {
					return err
				}
			}
			srv, err := master.New(o)
			if err != nil {
				return err
			}
			if err := srv.Listen(); err != nil {
				return err
			}
			fpFile := filepath.Join(o.State, "fingerprint")
			os.WriteFile(fpFile, []byte(srv.Fingerprint()+"\n"), 0o644)
			os.WriteFile(filepath.Join(o.State, "address"), []byte(srv.Addr()+"\n"), 0o644)
			fmt.Fprintf(c.ErrOrStderr(), "volsched master: listening on %s\nCA fingerprint (workers: --fingerprint): %s\n", srv.Addr(), srv.Fingerprint())
			err = srv.Run(c.Context())
			if errors.Is(err, c.Context().Err()) && err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "volsched master: interrupted; the state is kept, the same command continues")
				return nil
			}
			if err != nil {
				return fmt.Errorf("application %s stopped: %w", app.Manifest.Name, err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "volsched master: application %s finished; output in %s\n", app.Manifest.Name, filepath.Join(o.State, "output"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&appDir, "app", "", "application directory (with volsched.toml or volsched.json)")
	f.StringVar(&o.State, "state", "", "state directory (CA, database, blobs, output); created on first start")
	f.StringVar(&o.Listen, "listen", o.Listen, "address to listen on (HTTPS: RPC, blobs, /metrics)")
	f.StringSliceVar(&o.Hosts, "host", nil, "extra host name or address for the certificate (repeatable; localhost, loopback and the host name are always in)")
	f.Var(heuristicFlag{&o.Heuristic}, "heuristic", "the iterative model's heuristic: one of the 17 of §6 (RANDOM…UD*) or a registered one ('volsched simulate --list-heuristics')")
	f.IntVar(&o.NCom, "ncom", o.NCom, "at most this many transfers (program or data) at once")
	f.DurationVar(&o.Slot, "slot", o.Slot, "the model's time slot: for the chains' estimation and T_prog, T_data, w_q in slots")
	f.DurationVar(&o.Heartbeat, "heartbeat", o.Heartbeat, "the workers' heart-beat period")
	f.BoolVar(&udpBeats, "udp-heartbeats", true, "take the workers' plain heart-beats as signed UDP datagrams on the same port as --listen (UDP), the socket as fallback (docs/runtime.md)")
	f.DurationVar(&o.DownAfter, "down-after", o.DownAfter, "a worker not heard from for this long is DOWN (0: 5 heart-beats)")
	f.IntVar(&o.ExtraReplicas, "replicas", o.ExtraReplicas, "additional copies of a task when more workers are UP than tasks remain (§6.1)")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "random heuristics' seed")
	f.Int64Var(&o.Rate, "rate", o.Rate, "limit every blob download to this many bytes/s (0: none; for demos)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&logFormat, "log-format", "text", "text or json")
	f.StringVar(&pprofAddr, "pprof", "", "serve Go's profiles (net/http/pprof, no authentication) on this loopback address, e.g. 127.0.0.1:6060 (measurements: docs/benchmarks.md)")

	token := &cobra.Command{Use: "token", Short: "Manage the workers' tokens (stored hashed in STATE/master.db)"}
	var tokState string
	add := &cobra.Command{
		Use:   "add NAME --state DIR",
		Short: "Make a token for worker NAME and print it (only once: it is stored hashed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			db, err := openState(tokState)
			if err != nil {
				return err
			}
			defer db.Close()
			tok, err := db.AddToken(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), tok)
			return nil
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke NAME --state DIR",
		Short: "Revoke worker NAME's token (a running master ends its sessions within a second)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			db, err := openState(tokState)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.RevokeToken(args[0])
		},
	}
	var copyFrom string
	var copyCA bool
	tcopy := &cobra.Command{
		Use:   "copy --from OLDSTATE --state DIR",
		Short: "Give a new application's state directory the workers' tokens (and the CA) of another",
		Long: `copy gives the state directory --state (created if needed) the valid tokens
of --from, and its CA (unless --ca=false), so that the workers of a finished
application, left waiting (volsched worker without --exit-when-done), are
accepted by the master of the next one on the same address: same tokens,
same fingerprint. A name --state already has a valid token for keeps it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if copyFrom == "" {
				return usagef("--from is required: the state directory whose tokens to copy")
			}
			if _, err := os.Stat(filepath.Join(copyFrom, "master.db")); err != nil {
				return fmt.Errorf("--from %s: no master state there (%v)", copyFrom, err)
			}
			if abs1, _ := filepath.Abs(copyFrom); tokState != "" {
				if abs2, _ := filepath.Abs(tokState); abs1 == abs2 {
					return usagef("--from and --state are the same directory %s", abs1)
				}
			}
			db, err := openState(tokState)
			if err != nil {
				return err
			}
			defer db.Close()
			from, err := master.OpenDB(copyFrom)
			if err != nil {
				return fmt.Errorf("--from %s: %v", copyFrom, err)
			}
			defer from.Close()
			if copyCA {
				copied, err := pki.CopyCA(copyFrom, tokState)
				if err != nil {
					return err
				}
				if copied {
					fmt.Fprintf(c.ErrOrStderr(), "CA copied: fingerprint unchanged\n")
				}
			}
			n, kept, err := db.CopyTokens(from)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "%d token(s) copied, %d name(s) kept their own\n", n, kept)
			return nil
		},
	}
	tcopy.Flags().StringVar(&copyFrom, "from", "", "the state directory to copy from")
	tcopy.Flags().BoolVar(&copyCA, "ca", true, "copy the CA too (the workers' --fingerprint stays valid)")
	for _, sc := range []*cobra.Command{add, revoke, tcopy} {
		sc.Flags().StringVar(&tokState, "state", "", "the master's state directory")
	}
	token.AddCommand(add, revoke, tcopy)
	cmd.AddCommand(token)
	rootCmd.AddCommand(cmd)
}

// slotPredictor is the master's and the demo's Predictor: whatif/simulate's
// forecast by the slot simulator (the live system imports no simulator).
func slotPredictor() master.Predictor { return master.PredictorFunc(simulate.ForecastIterative) }

func openState(dir string) (*master.DB, error) {
	if dir == "" {
		return nil, usagef("--state is required")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return master.OpenDB(dir)
}

// servePprof serves net/http/pprof on a loopback address (it has no
// authentication: never on a public interface).
func servePprof(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--pprof %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usagef("--pprof %q: want a loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT): the profiles have no authentication", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof %s: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go http.Serve(ln, mux)
	return nil
}
