package workload

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/volsched/volsched/des"
)

// SortJobs sorts jobs by (submission time, node, id).
func SortJobs(jobs []Job) {
	slices.SortFunc(jobs, func(a, b Job) int {
		if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// MaxLengthMI is the longest task a trace (or an SWF log, or a probe) may
// have: 10^12 MI, 31 years at 1000 MIPS. Longer tasks cannot be simulated:
// their execution time would not be representable (des.MaxSeconds) on the
// nodes of the site-level workload.
const MaxLengthMI = 1e12

// TraceHeader is the first line of a trace file.
const TraceHeader = "submit_s,node,id,tasks,length_mi,mem_mb,disk_mb,deadline_s"

// WriteTrace writes jobs as CSV (times in seconds with nanosecond
// precision; deadline 0 means none), so a generated workload can be
// replayed exactly by ReadTrace.
func WriteTrace(w io.Writer, jobs []Job) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, TraceHeader)
	for _, j := range jobs {
		writeJob(bw, j)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

func writeJob(bw *bufio.Writer, j Job) {
	fmt.Fprintf(bw, "%s,%d,%d,%d,%s,%s,%s,%s\n", secs(j.Submit), j.Node, j.ID, j.Tasks,
		strconv.FormatFloat(j.LengthMI, 'g', -1, 64), strconv.FormatFloat(float64(j.MemMB), 'g', -1, 32),
		strconv.FormatFloat(float64(j.DiskMB), 'g', -1, 32), secs(j.Deadline))
}

// WriteGenerated writes the trace of Generate(p, d, seed, nodes, horizon)
// (the same bytes WriteTrace would) without holding the jobs: users are
// merged lazily by (submission time, node, id), each user's jobs coming in
// that order, so memory is proportional to the nodes, not to the jobs. It
// stops with ctx's error, after the jobs already written, when ctx is
// cancelled.
func WriteGenerated(ctx context.Context, w io.Writer, p *Params, d *Distributions, seed uint64, nodes int, horizon des.Time) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if nodes < 1 {
		return fmt.Errorf("workload: nodes = %d: want >= 1", nodes)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, TraceHeader)
	users := make([]*User, nodes)
	next := make([]Job, nodes) // each user's next job
	h := userHeap{next: next, idx: make([]int32, 0, nodes)}
	for i := 0; i < nodes; i++ {
		if i&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		users[i] = NewUser(p, d, seed, int32(i), p.NodeOf(seed, i).PowerMIPS)
		if next[i] = users[i].Next(); next[i].Submit < horizon {
			h.idx = append(h.idx, int32(i))
		}
	}
	for k := len(h.idx)/2 - 1; k >= 0; k-- {
		h.down(k)
	}
	for n := 0; len(h.idx) > 0; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				bw.Flush()
				return err
			}
		}
		u := h.idx[0]
		writeJob(bw, next[u])
		if next[u] = users[u].Next(); next[u].Submit >= horizon {
			last := len(h.idx) - 1
			h.idx[0] = h.idx[last]
			h.idx = h.idx[:last]
		}
		h.down(0)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// userHeap is a binary min-heap of users ordered by their next job as
// SortJobs orders jobs (submission time, node, id).
type userHeap struct {
	next []Job
	idx  []int32
}

func (h *userHeap) less(a, b int32) bool {
	x, y := &h.next[a], &h.next[b]
	if x.Submit != y.Submit {
		return x.Submit < y.Submit
	}
	if x.Node != y.Node {
		return x.Node < y.Node
	}
	return x.ID < y.ID
}

func (h *userHeap) down(k int) {
	n := len(h.idx)
	for {
		c := 2*k + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(h.idx[c+1], h.idx[c]) {
			c++
		}
		if !h.less(h.idx[c], h.idx[k]) {
			return
		}
		h.idx[k], h.idx[c] = h.idx[c], h.idx[k]
		k = c
	}
}

func secs(t des.Time) string {
	neg := ""
	if t < 0 {
		neg, t = "-", -t
	}
	return fmt.Sprintf("%s%d.%09d", neg, t/des.Second, t%des.Second)
}

func parseSecs(s string) (des.Time, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 9e9 {
		return 0, fmt.Errorf("time %q: want seconds, a finite number below 9e9", s)
	}
	// Exact for the fixed-point form written by WriteTrace.
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 == 9 && !strings.ContainsAny(s, "eE") {
		whole, err1 := strconv.ParseInt(strings.TrimPrefix(s[:i], "-"), 10, 64)
		frac, err2 := strconv.ParseInt(s[i+1:], 10, 64)
		if err1 == nil && err2 == nil {
			t := des.Time(whole)*des.Second + des.Time(frac)
			if strings.HasPrefix(s, "-") {
				t = -t
			}
			return t, nil
		}
	}
	return des.Seconds(f), nil
}

// ReadTrace reads a trace written by WriteTrace (or by hand: the header
// line, then one job per line). Errors give the line and the field. nodes
// bounds the node column (0: no bound). Jobs are returned sorted.
func ReadTrace(r io.Reader, name string, nodes int) ([]Job, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	var jobs []Job
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			if s != TraceHeader {
				return nil, fmt.Errorf("%s:1: header %q, want %q", name, s, TraceHeader)
			}
			continue
		}
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.Split(s, ",")
		if len(f) != 8 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 8 (%s)", name, line, len(f), TraceHeader)
		}
		var j Job
		var err error
		if j.Submit, err = parseSecs(f[0]); err != nil || j.Submit < 0 {
			return nil, fmt.Errorf("%s:%d: submit_s %q: want seconds >= 0", name, line, f[0])
		}
		n, err := strconv.ParseInt(f[1], 10, 32)
		if err != nil || n < 0 || (nodes > 0 && n >= int64(nodes)) {
			return nil, fmt.Errorf("%s:%d: node %q: want an integer in [0, %d)", name, line, f[1], nodes)
		}
		j.Node = int32(n)
		if j.ID, err = strconv.ParseUint(f[2], 10, 64); err != nil {
			return nil, fmt.Errorf("%s:%d: id %q: want an unsigned integer", name, line, f[2])
		}
		t, err := strconv.ParseInt(f[3], 10, 32)
		if err != nil || t < 1 {
			return nil, fmt.Errorf("%s:%d: tasks %q: want an integer >= 1", name, line, f[3])
		}
		j.Tasks = int32(t)
		if j.LengthMI, err = strconv.ParseFloat(f[4], 64); err != nil || !(j.LengthMI > 0 && j.LengthMI <= MaxLengthMI) {
			return nil, fmt.Errorf("%s:%d: length_mi %q: want a number of MI in (0, %g]", name, line, f[4], MaxLengthMI)
		}
		for k, dst := range []*float32{&j.MemMB, &j.DiskMB} {
			v, err := strconv.ParseFloat(f[5+k], 32)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: %s %q: want a finite number >= 0", name, line, []string{"mem_mb", "disk_mb"}[k], f[5+k])
			}
			*dst = float32(v)
		}
		if j.Deadline, err = parseSecs(f[7]); err != nil || j.Deadline < 0 {
			return nil, fmt.Errorf("%s:%d: deadline_s %q: want seconds >= 0 (0: none)", name, line, f[7])
		}
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty, want the header %q", name, TraceHeader)
	}
	SortJobs(jobs)
	return jobs, nil
}
