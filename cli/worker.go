package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/live/worker"
)

func init() {
	o := worker.DefaultOptions()
	var masterFlag, token, tokenFile, fingerprint, caFile string
	var reclaim, reclaimCmd, emulate, emulateStart, logLevel, logFormat string
	var reclaimLoad float64
	var udpBeats bool
	cmd := &cobra.Command{
		Use:   "worker --master URL --token T --cache DIR --fingerprint FP",
		Short: "Work for a volsched master: connect out, run tasks, give the machine back when its owner wants it",
		Long: `worker connects to a volsched master (it never listens: it can sit behind
NAT), runs the tasks the master gives it, and heart-beats its state:

  UP          available;
  RECLAIMED   its owner wants the machine: the task's processes are stopped
              (SIGSTOP) and transfers pause until it is UP again. Decided by
              --reclaim (cpu: other processes use more than --reclaim-load
              of the CPUs; none), or --reclaim-cmd (reclaimed while the
              command exits 0), or by hand: SIGUSR1 enters, SIGUSR2 leaves;
  DOWN        gone: the master notices the missing heart-beats.

--emulate CHAIN.json makes the worker follow a 3-state Markov chain ({"P":
[[..],[..],[..]]}, states u r d), one draw per slot of the master: tests and
demos use it to create volatility on purpose (DOWN drops the connection and
wipes the cache).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url, err := masterURL(masterFlag)
			if err != nil {
				return err
			}
			tok, err := tokenValue(token, tokenFile)
			if err != nil {
				return err
			}
			if o.TLS, err = clientTLS(fingerprint, caFile); err != nil {
				return err
			}
			o.Master, o.Token, o.NoUDPBeats = url, tok, !udpBeats
			if o.Probe, err = worker.NewProbe(reclaim, reclaimLoad, reclaimCmd); err != nil {
				return usagef("%v", err)
			}
			if emulate != "" {
				data, err := os.ReadFile(emulate)
				if err != nil {
					return usagef("--emulate %s: %v", emulate, err)
				}
				ch, err := availability.ParseChain(data, emulate)
				if err != nil {
					return err
				}
				o.Emulate = &ch
				if emulateStart == "stationary" {
					o.EmulateStationary = true
				} else if o.EmulateStart, err = availability.ParseState(emulateStart); err != nil {
					return usagef("--emulate-start: %v (or stationary)", err)
				}
			}
			if err := o.Validate(); err != nil {
				return usagef("%v", err)
			}
			log, err := newLogger(logLevel, logFormat)
			if err != nil {
				return err
			}
			o.Logger = log
			w, err := worker.New(o)
			if err != nil {
				return usagef("%v", err)
			}
			sig := make(chan os.Signal, 4)
			signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
			defer signal.Stop(sig)
			go func() {
				for s := range sig {
					w.SetManual(s == syscall.SIGUSR1)
					log.Info("manual state", "reclaimed", s == syscall.SIGUSR1)
				}
			}()
			err = w.Run(c.Context())
			if errors.Is(err, worker.ErrAuth) {
				return fmt.Errorf("%s: %w", url, err)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&masterFlag, "master", "", "the master's URL, https://HOST:PORT")
	f.StringVar(&token, "token", "", "this worker's token (or --token-file, or $VOLSCHED_TOKEN)")
	f.StringVar(&tokenFile, "token-file", "", "file holding the token")
	f.StringVar(&o.Cache, "cache", o.Cache, "cache directory (program, inputs; kept across restarts and revalidated by hash)")
	f.StringVar(&fingerprint, "fingerprint", "", "the master's CA fingerprint (SHA-256, as it prints it)")
	f.StringVar(&caFile, "ca", "", "the master's CA certificate (STATE/ca.pem), instead of --fingerprint")
	f.StringVar(&reclaim, "reclaim", "cpu", "RECLAIMED probe: cpu (other processes' CPU load) or none")
	f.Float64Var(&reclaimLoad, "reclaim-load", worker.DefaultReclaimLoad, "with --reclaim cpu: RECLAIMED while other processes use more than this fraction of the CPUs")
	f.StringVar(&reclaimCmd, "reclaim-cmd", "", "RECLAIMED while this shell command exits 0 (replaces --reclaim)")
	f.DurationVar(&o.ProbeEvery, "probe-every", o.ProbeEvery, "how often the probe runs")
	f.StringVar(&emulate, "emulate", "", "follow this 3-state chain (JSON) one draw per slot, for tests and demos")
	f.Uint64Var(&o.EmulateSeed, "emulate-seed", o.EmulateSeed, "seed of the emulated chain's draws")
	f.StringVar(&emulateStart, "emulate-start", "u", "emulated state at start: u, r, d or stationary")
	f.DurationVar(&o.EmulateSlot, "emulate-slot", o.EmulateSlot, "the emulation's slot (the master's --slot; needed with --emulate-start d or stationary; 0: learnt at registration)")
	f.BoolVar(&udpBeats, "udp-heartbeats", true, "send plain heart-beats as signed UDP datagrams when the master offers it (the socket as fallback)")
	f.StringVar(&o.BeatAddr, "udp-heartbeat-addr", o.BeatAddr, "send the heart-beat datagrams to this HOST:PORT instead of the master's host and UDP port (a forwarded port)")
	f.BoolVar(&o.ExitWhenDone, "exit-when-done", o.ExitWhenDone, "exit when the master's application is finished")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&logFormat, "log-format", "text", "text or json")
	rootCmd.AddCommand(cmd)
}
