package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/volsched/volsched/workload"
)

// extremeValues are the values TestCLIExtremeNumericInputs gives every
// numeric input: zero, negative, huge, not a number, infinite, 2^63 (one
// past the largest int64), the largest int64, a subnormal, negative zero.
var extremeValues = []string{"0", "-1", "1e308", "NaN", "Inf", "-Inf", "9223372036854775808", "9223372036854775807", "1e-320", "-0"}

// TestCLIExtremeNumericInputs drives every command's numeric inputs with
// extreme values: each run must end with a clean result or a clean error
// (one "volsched: " message, exit 1 or 2), never a panic, and must stop
// when interrupted if it is still running after a few seconds (a huge but
// valid value may ask for a long run).
func TestCLIExtremeNumericInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("hundreds of subprocesses")
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	chain := write("chain.json", `{"P":[[0.9,0.05,0.05],[0.05,0.9,0.05],[0.05,0.05,0.9]]}`)
	set := write("set.json", `{"chains":[{"P":[[0.9,0.05,0.05],[0.05,0.9,0.05],[0.05,0.05,0.9]]},{"P":[[0.8,0.1,0.1],[0.1,0.8,0.1],[0.1,0.1,0.8]]}]}`)
	probs := write("p.json", `{"p":[0.1,0.2,0.3,0.4]}`)
	trace := write("t.csv", workload.TraceHeader+"\n0,0,1,2,1000,0,0,0\n")
	fta := write("t.tab", "# trace\n"+
		"1\t0\t0\t0\th0\t1\t0\t100\t0\n2\t0\t0\t0\th0\t0\t100\t150\t0\n3\t0\t0\t0\th0\t1\t150\t400\t0\n"+
		"4\t0\t1\t0\th1\t1\t0\t50\t0\n5\t0\t1\t0\th1\t0\t50\t70\t0\n6\t0\t1\t0\th1\t1\t70\t400\t0\n")
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	writeTestWorkloadData(t, data)
	sim := "overlay sim --nodes 4 --hours 0.1 --workload " + trace + " --out OUT "
	templates := []string{
		"analyze --chain " + chain + " --work {}",
		"analyze --set " + set + " --work 3 --epsilon {}",
		"analyze --set " + set + " --work 3 --ncom {} --comm 1,1",
		"analyze --set " + set + " --work 3 --ncom 1 --comm {},1",
		"analyze --set " + set + " --work 9223372036854775807 --ncom 2 --comm {},{}",
		"alloc --gdfn 0.5,0.3 --hosts {} --tasks 2",
		"alloc --probs " + probs + " --tasks {}",
		"alloc --probs " + probs + " --tasks 2 --moves-per-host {}",
		"alloc --probs " + probs + " --tasks 2 --algo exact --max-nodes {}",
		"alloc --gdfn {},0.3 --hosts 4 --tasks 2",
		"alloc --gdfn 0.5,{} --hosts 4 --tasks 2",
		"alloc --probs " + probs + " --tasks 2 --seed {}",
		"exp redundant --figure {} --reps 1 --quick",
		"exp redundant --figure 1 --quick --reps {} --out OUT",
		"exp redundant --figure 1 --reps 1 --step {} --out OUT",
		"exp redundant --figure 3 --reps 1 --ms {} --out OUT",
		"exp redundant --figure 1 --quick --reps 1 --moves-per-host {}",
		"exp redundant --figure 1 --quick --reps 1 --workers {}",
		"exp redundant --figure 4 --quick --reps 1 --sab-c {}",
		"exp redundant --figure 4 --reps 1 --trace " + fta + " --task-size {}",
		"exp independent --scenarios 1 --trials 1 --n 5 --ncom 5 --wmin 1 --workers {} --out OUT",
		"exp independent --scenarios 1 --trials 1 --n 5 --ncom 5 --wmin 1 --seed {} --out OUT",
		"exp independent --scenarios 1 --trials 1 --n 5 --ncom 5 --wmin 1 --shard {}/2 --out OUT",
		"exp independent --scenarios 1 --trials 1 --n 5 --ncom 5 --wmin 1 --shard 1/{} --out OUT",
		"trace fit --rate {} " + fta,
		"trace gen --seed {} --out OUT",
		sim + "--hours {}",
		"overlay sim --hours 0.1 --workload " + trace + " --out OUT --nodes {}",
		sim + "--sfmax {}",
		sim + "--update-bw {}",
		sim + "--policy mmp --beta {}",
		sim + "--probe-every 1m --probe-tasks {}",
		sim + "--probe-every 1m --probe-length {}",
		sim + "--seed {}",
		sim + "--fail {}@1m",
		sim + "--fail 0.5@{}",
		sim + "--churn {}",
		sim + "--sample {}ns",
		sim + "--detect {}ns",
		sim + "--probe-every {}ns",
		sim + "--central-per-node {}ns",
		sim + "--checkpoint-every {}ns",
		"overlay sim --nodes 4 --hours 0.1 --out OUT --swf-power {} --swf " + write("s.swf", "1 0 0 100 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 -1\n"),
		"overlay workload --nodes {} --hours 0.01 --data " + data,
		"overlay workload --nodes 4 --hours {} --data " + data,
		"overlay workload --nodes 4 --hours 1 --seed {} --data " + data,
		"overlay accuracy --nodes {}",
		"overlay accuracy --sfmax {}",
		"reproduce --quick --only analytic --seed {}",
	}
	n := 0
	for _, tmpl := range templates {
		for _, v := range extremeValues {
			n++
			args := strings.ReplaceAll(tmpl, "{}", v)
			args = strings.ReplaceAll(args, "OUT", filepath.Join(dir, fmt.Sprintf("out%d", n)))
			checkExtremeRun(t, args)
		}
	}
}

// checkExtremeRun runs `volsched args` (space-separated): after 3 s it is
// interrupted, after stopBound more killed (a failure).
func checkExtremeRun(t *testing.T, args string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VOLSCHED_RUN_MAIN=1", "VOLSCHED_ARGS="+args)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	interrupted := false
	select {
	case err = <-exited:
	case <-time.After(3 * time.Second):
		interrupted = true
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err = <-exited:
		case <-time.After(stopBound):
			cmd.Process.Kill()
			<-exited
			t.Errorf("volsched %s: still running %v after SIGINT", args, stopBound)
			return
		}
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	e := errb.String()
	switch {
	case strings.Contains(e, "panic") || strings.Contains(e, "goroutine "):
		t.Errorf("volsched %s: exit %d, a panic: %.600s", args, code, e)
	case code != 0 && code != 1 && code != 2 && !(interrupted && code == 130):
		t.Errorf("volsched %s: exit status %d; stderr %.300q", args, code, e)
	case code != 0 && !strings.Contains(e, "volsched: "):
		t.Errorf("volsched %s: exit %d without a message; stderr %.300q", args, code, e)
	case strings.Contains(e, "volsched: volsched"):
		t.Errorf("volsched %s: doubled prefix: %.300q", args, e)
	}
}
