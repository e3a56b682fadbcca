package cli

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/volsched/volsched/availability"
	"github.com/volsched/volsched/live/worker"
)

func init() {
	var masterFlag, token, tokenFile, cache, fingerprint, caFile string
	var reclaim, reclaimCmd, emulate, emulateStart, logLevel, logFormat string
	var reclaimLoad float64
	var probeEvery, emulateSlot time.Duration
	var emulateSeed uint64
	var exitWhenDone, udpBeats bool
	var beatAddr string
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
			if cache == "" {
				return usagef("--cache is required (the worker's cache directory)")
			}
			tlsCfg, err := clientTLS(fingerprint, caFile)
			if err != nil {
				return err
			}
			log, err := newLogger(logLevel, logFormat)
			if err != nil {
				return err
			}
			o := worker.Options{Master: url, Token: tok, Cache: cache, TLS: tlsCfg, ProbeEvery: probeEvery, ExitWhenDone: exitWhenDone, NoUDPBeats: !udpBeats, BeatAddr: beatAddr, Logger: log}
			switch {
			case reclaimCmd != "":
				o.Probe = &worker.CmdProbe{Cmd: reclaimCmd}
			case reclaim == "cpu":
				if !(reclaimLoad > 0 && reclaimLoad <= 1) {
					return usagef("--reclaim-load %v: want a fraction of the CPUs in (0, 1]", reclaimLoad)
				}
				o.Probe = &worker.CPUProbe{Threshold: reclaimLoad}
			case reclaim == "none":
			default:
				return usagef("--reclaim %q: want cpu or none", reclaim)
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
				o.Emulate, o.EmulateSeed, o.EmulateSlot, o.Probe = &ch, emulateSeed, emulateSlot, nil
				if emulateSlot < 0 {
					return usagef("--emulate-slot %v: want ≥ 0 (0: the master's slot, learnt at registration)", emulateSlot)
				}
				switch emulateStart {
				case "stationary":
					pi := ch.Stationary()
					u := rand.New(rand.NewPCG(emulateSeed, 1)).Float64()
					switch {
					case u < pi[0]:
						o.EmulateStart = availability.Up
					case u < pi[0]+pi[1]:
						o.EmulateStart = availability.Reclaimed
					default:
						o.EmulateStart = availability.Down
					}
				default:
					s, err := availability.ParseState(emulateStart)
					if err != nil {
						return usagef("--emulate-start: %v (or stationary)", err)
					}
					o.EmulateStart = s
				}
				// (stationary may draw DOWN with another seed: it always needs it.)
				if emulateSlot == 0 && (emulateStart == "stationary" || o.EmulateStart == availability.Down) {
					return usagef("--emulate-start %s needs --emulate-slot (the master's --slot): a worker starting DOWN learns the slot only when it registers", emulateStart)
				}
			}
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
	f.StringVar(&cache, "cache", "", "cache directory (program, inputs; kept across restarts and revalidated by hash)")
	f.StringVar(&fingerprint, "fingerprint", "", "the master's CA fingerprint (SHA-256, as it prints it)")
	f.StringVar(&caFile, "ca", "", "the master's CA certificate (STATE/ca.pem), instead of --fingerprint")
	f.StringVar(&reclaim, "reclaim", "cpu", "RECLAIMED probe: cpu (other processes' CPU load) or none")
	f.Float64Var(&reclaimLoad, "reclaim-load", 0.5, "with --reclaim cpu: RECLAIMED while other processes use more than this fraction of the CPUs")
	f.StringVar(&reclaimCmd, "reclaim-cmd", "", "RECLAIMED while this shell command exits 0 (replaces --reclaim)")
	f.DurationVar(&probeEvery, "probe-every", time.Second, "how often the probe runs")
	f.StringVar(&emulate, "emulate", "", "follow this 3-state chain (JSON) one draw per slot, for tests and demos")
	f.Uint64Var(&emulateSeed, "emulate-seed", 1, "seed of the emulated chain's draws")
	f.StringVar(&emulateStart, "emulate-start", "u", "emulated state at start: u, r, d or stationary")
	f.DurationVar(&emulateSlot, "emulate-slot", 0, "the emulation's slot (the master's --slot; needed with --emulate-start d or stationary; 0: learnt at registration)")
	f.BoolVar(&udpBeats, "udp-heartbeats", true, "send plain heart-beats as signed UDP datagrams when the master offers it (the socket as fallback)")
	f.StringVar(&beatAddr, "udp-heartbeat-addr", "", "send the heart-beat datagrams to this HOST:PORT instead of the master's host and UDP port (a forwarded port)")
	f.BoolVar(&exitWhenDone, "exit-when-done", false, "exit when the master's application is finished")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&logFormat, "log-format", "text", "text or json")
	rootCmd.AddCommand(cmd)
}
