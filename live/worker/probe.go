package worker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Probe decides whether the machine's owner wants it back (RECLAIMED).
type Probe interface {
	Reclaimed(ctx context.Context) bool
}

// CmdProbe: RECLAIMED while the shell command exits 0 (`--reclaim-cmd`).
type CmdProbe struct {
	Cmd     string
	Timeout time.Duration
}

func (p *CmdProbe) Reclaimed(ctx context.Context) bool {
	t := p.Timeout
	if t == 0 {
		t = 10 * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	return exec.CommandContext(cctx, "/bin/sh", "-c", p.Cmd).Run() == nil
}

// CPUProbe: RECLAIMED while the processes other than this worker and its
// tasks use more than Threshold of the machine's CPU time (0..1, from
// /proc/stat and /proc/PID/stat between two polls).
type CPUProbe struct {
	Threshold float64
	lastTotal uint64
	lastBusy  uint64
	lastOurs  map[int]uint64
}

// validate checks the threshold (--reclaim-load).
func (p *CPUProbe) validate() error {
	if !(p.Threshold > 0 && p.Threshold <= 1) {
		return fmt.Errorf("--reclaim-load %v: want a fraction of the CPUs in (0, 1]", p.Threshold)
	}
	return nil
}

func (p *CPUProbe) Reclaimed(ctx context.Context) bool {
	total, busy, err := readProcStat()
	if err != nil {
		return false
	}
	ours := ourCPU()
	defer func() { p.lastTotal, p.lastBusy, p.lastOurs = total, busy, ours }()
	if p.lastTotal == 0 || total <= p.lastTotal {
		return false
	}
	var oursDelta uint64
	for pid, t := range ours {
		if t > p.lastOurs[pid] {
			oursDelta += t - p.lastOurs[pid]
		}
	}
	others := float64(busy-p.lastBusy) - float64(oursDelta)
	return others/float64(total-p.lastTotal) > p.Threshold
}

// OtherLoad is a one-off reading of the load of other processes (for
// logs): the fraction of CPU time they used over d.
func OtherLoad(d time.Duration) (float64, error) {
	p := &CPUProbe{}
	if _, _, err := readProcStat(); err != nil {
		return 0, err
	}
	p.Reclaimed(context.Background())
	t0, b0, o0 := p.lastTotal, p.lastBusy, p.lastOurs
	time.Sleep(d)
	t1, b1, _ := readProcStat()
	o1 := ourCPU()
	var od uint64
	for pid, t := range o1 {
		if t > o0[pid] {
			od += t - o0[pid]
		}
	}
	if t1 <= t0 {
		return 0, nil
	}
	return (float64(b1-b0) - float64(od)) / float64(t1-t0), nil
}

// readProcStat returns the total and busy jiffies of all CPUs.
func readProcStat() (total, busy uint64, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, 0, fmt.Errorf("/proc/stat: empty")
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", sc.Text())
	}
	var v []uint64
	for _, s := range fields[1:] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %q: %v", s, err)
		}
		v = append(v, n)
	}
	// user nice system idle iowait irq softirq steal (guest is in user)
	for i, n := range v {
		if i >= 8 {
			break
		}
		total += n
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return total, busy, nil
}

// ourCPU returns utime+stime (jiffies) of this process and its
// descendants, by pid.
func ourCPU() map[int]uint64 {
	self := os.Getpid()
	parent := map[int]int{}
	times := map[int]uint64{}
	ents, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range ents {
		data, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseUint(f[11], 10, 64)
		st, _ := strconv.ParseUint(f[12], 10, 64)
		parent[pid], times[pid] = ppid, ut+st
	}
	out := map[int]uint64{}
	for pid, t := range times {
		for q, n := pid, 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == self {
				out[pid] = t
				break
			}
		}
	}
	return out
}
