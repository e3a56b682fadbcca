package workload

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/internal/jsonin"
	"github.com/volsched/volsched/stream"
)

// Job is one application submission: Tasks identical tasks of LengthMI
// millions of instructions each, submitted by the user of node Node at
// time Submit, with an absolute Deadline (0: none).
type Job struct {
	Submit   des.Time `json:"submit"`
	Node     int32    `json:"node"`
	Tasks    int32    `json:"tasks"`
	ID       uint64   `json:"id"`
	LengthMI float64  `json:"length_mi"`
	MemMB    float32  `json:"mem_mb"`
	DiskMB   float32  `json:"disk_mb"`
	Deadline des.Time `json:"deadline"`
}

// Params are every parameter of the site-level model. DefaultParams gives
// the values of seed 004 §7.2 and of its authors' generator (as restated in
// the data folder's README) where they are known, and ours, marked, where
// they are not.
type Params struct {
	// Working hours. A user is a day worker with probability
	// DayWorkerFraction (0.7) and then works WorkStart..WorkEnd (07:30 to
	// 17:30) shifted by a per-user uniform offset in [-Shift, +Shift]
	// (1 h); other users work the same hours shifted by NightShift (12 h,
	// our reading of "70 % of users work days": the other 30 % work
	// nights). A user works weekdays only with probability
	// WeekdayWorkerFraction (0.8), every day otherwise. Time 0 is 00:00 of
	// day StartWeekday (0 = Monday).
	DayWorkerFraction     float64  `json:"day_worker_fraction"`
	WeekdayWorkerFraction float64  `json:"weekday_worker_fraction"`
	WorkStart             des.Time `json:"work_start_ns"`
	WorkEnd               des.Time `json:"work_end_ns"`
	Shift                 des.Time `json:"shift_ns"`
	NightShift            des.Time `json:"night_shift_ns"`
	StartWeekday          int      `json:"start_weekday"`
	// WarmStart spreads the first batch of the users who are working at
	// time 0 uniformly over [0, WarmStart) (ours: 1 h; 0 makes them all
	// submit at time 0).
	WarmStart des.Time `json:"warm_start_ns"`

	// After a batch, the user continues (think time) with probability
	// ContinueA/(1 + ContinueB·rt), rt the batch response time in minutes
	// (0.8 and 0.05), else takes a break.
	ContinueA float64 `json:"continue_a"`
	ContinueB float64 `json:"continue_b"`

	// Deadline rule ∆ = (DeadlineA/U − 1)/DeadlineB minutes (0.8, 0.05),
	// clipped to [δmin, δmax] with δmax = a·n/s_u and δmin = a·n/S_plat,
	// moved to the next wake time when it falls outside working time.
	// S_plat, the platform speed the user perceives, is an exponential
	// moving average SpeedEMA·old + (1−SpeedEMA)·(work/response) (0.8),
	// starting at InitialSpeedFactor·s_u (ours: 1, the user's own machine).
	DeadlineA          float64 `json:"deadline_a"`
	DeadlineB          float64 `json:"deadline_b"`
	SpeedEMA           float64 `json:"speed_ema"`
	InitialSpeedFactor float64 `json:"initial_speed_factor"`

	// The trace is generated once, before and independently of any
	// simulation (§7.2), so the response time of a job is modelled, not
	// simulated (ours): its tasks run in parallel on nodes of power
	// RefPowerMIPS after ResponseOverhead. A batch's response time runs
	// from its first submission to its last modelled completion.
	RefPowerMIPS     float64  `json:"ref_power_mips"`
	ResponseOverhead des.Time `json:"response_overhead_ns"`

	// AppSource is "hist" (default: task length, number of tasks and
	// memory drawn jointly from app_distribution.hist) or "cdf" (drawn
	// independently from tasklength.cdf, jobsize.cdf and taskmaxmem.cdf).
	AppSource string `json:"app_source"`
	// TaskDiskMB is the disk a task needs (the data has none; ours: 0).
	TaskDiskMB float64 `json:"task_disk_mb"`

	// Nodes (ours; the paper drew them from its traces, which the data
	// folder does not include): power uniform in [PowerMinMIPS,
	// PowerMaxMIPS], memory uniform among NodeMemMB, disk uniform among
	// NodeDiskMB.
	PowerMinMIPS float64   `json:"power_min_mips"`
	PowerMaxMIPS float64   `json:"power_max_mips"`
	NodeMemMB    []float64 `json:"node_mem_mb"`
	NodeDiskMB   []float64 `json:"node_disk_mb"`
}

// DefaultParams returns the parameters described on Params.
func DefaultParams() Params {
	return Params{
		DayWorkerFraction: 0.7, WeekdayWorkerFraction: 0.8,
		WorkStart: 7*des.Hour + 30*des.Minute, WorkEnd: 17*des.Hour + 30*des.Minute,
		Shift: des.Hour, NightShift: 12 * des.Hour, StartWeekday: 0, WarmStart: des.Hour,
		ContinueA: 0.8, ContinueB: 0.05,
		DeadlineA: 0.8, DeadlineB: 0.05, SpeedEMA: 0.8, InitialSpeedFactor: 1,
		RefPowerMIPS: 2000, ResponseOverhead: 0,
		AppSource: "hist", TaskDiskMB: 0,
		PowerMinMIPS: 1000, PowerMaxMIPS: 3000,
		NodeMemMB:  []float64{1024, 2048, 4096, 8192},
		NodeDiskMB: []float64{10000, 50000, 100000, 500000},
	}
}

func checkFrac(name string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return fmt.Errorf("workload parameter %s = %g: want a value in [0, 1]", name, v)
	}
	return nil
}

func checkPos(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("workload parameter %s = %g: want a finite value > 0", name, v)
	}
	return nil
}

// Validate checks every parameter.
func (p Params) Validate() error {
	for _, c := range []struct {
		n string
		v float64
	}{{"day_worker_fraction", p.DayWorkerFraction}, {"weekday_worker_fraction", p.WeekdayWorkerFraction},
		{"speed_ema", p.SpeedEMA}} {
		if err := checkFrac(c.n, c.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"continue_a", p.ContinueA}, {"continue_b", p.ContinueB}, {"deadline_a", p.DeadlineA},
		{"deadline_b", p.DeadlineB}, {"initial_speed_factor", p.InitialSpeedFactor},
		{"ref_power_mips", p.RefPowerMIPS}, {"power_min_mips", p.PowerMinMIPS}, {"power_max_mips", p.PowerMaxMIPS}} {
		if err := checkPos(c.n, c.v); err != nil {
			return err
		}
	}
	switch {
	case p.ContinueA > 1:
		return fmt.Errorf("workload parameter continue_a = %g: want <= 1 (it is a probability at rt = 0)", p.ContinueA)
	case p.WorkStart < 0 || p.WorkEnd <= p.WorkStart || p.WorkEnd-p.WorkStart > des.Day:
		return fmt.Errorf("workload parameters work_start/work_end = %v/%v: want 0 <= start < end <= start + 24h", p.WorkStart, p.WorkEnd)
	case p.Shift < 0 || p.Shift > 12*des.Hour:
		return fmt.Errorf("workload parameter shift = %v: want 0..12h", p.Shift)
	case p.NightShift < 0 || p.NightShift >= des.Day:
		return fmt.Errorf("workload parameter night_shift = %v: want 0..24h", p.NightShift)
	case p.StartWeekday < 0 || p.StartWeekday > 6:
		return fmt.Errorf("workload parameter start_weekday = %d: want 0 (Monday) .. 6", p.StartWeekday)
	case p.WarmStart < 0:
		return fmt.Errorf("workload parameter warm_start = %v: want >= 0", p.WarmStart)
	case p.ResponseOverhead < 0:
		return fmt.Errorf("workload parameter response_overhead = %v: want >= 0", p.ResponseOverhead)
	case p.AppSource != "hist" && p.AppSource != "cdf":
		return fmt.Errorf("workload parameter app_source = %q: want hist or cdf", p.AppSource)
	case !(p.TaskDiskMB >= 0):
		return fmt.Errorf("workload parameter task_disk_mb = %g: want >= 0", p.TaskDiskMB)
	case p.PowerMaxMIPS < p.PowerMinMIPS:
		return fmt.Errorf("workload parameters power_min_mips/power_max_mips = %g/%g: want min <= max", p.PowerMinMIPS, p.PowerMaxMIPS)
	case len(p.NodeMemMB) == 0 || len(p.NodeDiskMB) == 0:
		return fmt.Errorf("workload parameters node_mem_mb/node_disk_mb: want at least one value each")
	}
	for _, v := range append(append([]float64(nil), p.NodeMemMB...), p.NodeDiskMB...) {
		if !(v >= 0) {
			return fmt.Errorf("workload parameter node_mem_mb/node_disk_mb value %g: want >= 0", v)
		}
	}
	return nil
}

// Node is the hardware of one node.
type Node struct {
	PowerMIPS float64 `json:"power_mips"`
	MemMB     float64 `json:"mem_mb"`
	DiskMB    float64 `json:"disk_mb"`
}

// Stream labels of the workload's random draws.
const (
	labelNode uint64 = 0x6e6f6465 // "node"
	labelUser uint64 = 0x75736572 // "user"
)

// NodeOf returns node i's hardware for the run seed (its own stream, so
// any node can be drawn independently of the others).
func (p *Params) NodeOf(seed uint64, i int) Node {
	rng := stream.New(seed, labelNode, uint64(i))
	return Node{
		PowerMIPS: p.PowerMinMIPS + rng.Float64()*(p.PowerMaxMIPS-p.PowerMinMIPS),
		MemMB:     p.NodeMemMB[rng.IntN(len(p.NodeMemMB))],
		DiskMB:    p.NodeDiskMB[rng.IntN(len(p.NodeDiskMB))],
	}
}

// User generates the jobs of one user (one per node) in submission order.
// Each user has its own random stream, so users can be generated in any
// order, lazily, by any number of goroutines, with the same result.
type User struct {
	p     *Params
	d     *Distributions
	src   rand.PCG // rng's source, kept for checkpoints (SaveState)
	rng   *rand.Rand
	node  int32
	power float64 // s_u, MIPS

	start   des.Time // first working instant of day 0 (includes shift)
	weekday bool     // works weekdays only

	t          des.Time // next submission time
	batchLeft  int
	repeatLeft int
	tmpl       Job
	batchStart des.Time
	batchEnd   des.Time
	splat      float64 // perceived platform speed, MIPS
	seq        uint64
}

// NewUser returns the user of node (whose power is powerMIPS) for the run
// seed.
func NewUser(p *Params, d *Distributions, seed uint64, node int32, powerMIPS float64) *User {
	u := &User{p: p, d: d, node: node, power: powerMIPS}
	stream.Reset(&u.src, seed, labelUser, uint64(node)) // the draws of stream.New(seed, labelUser, node)
	u.rng = rand.New(&u.src)
	rng := u.rng
	shift := des.Time((rng.Float64()*2 - 1) * float64(p.Shift))
	u.start = p.WorkStart + shift
	if rng.Float64() >= p.DayWorkerFraction {
		u.start += p.NightShift
	}
	u.weekday = rng.Float64() < p.WeekdayWorkerFraction
	u.splat = p.InitialSpeedFactor * powerMIPS
	// A user already working at time 0 is in the middle of a session: its
	// first batch comes after a uniform delay in [0, WarmStart) instead of
	// every such user submitting at the same instant.
	u.t = u.NextWake(0)
	if u.t == 0 && p.WarmStart > 0 {
		u.t = u.NextWake(des.Time(rng.Int64N(int64(p.WarmStart))))
	}
	return u
}

// workDay reports whether day d (0 = the day of time 0) is a working day.
func (u *User) workDay(d int64) bool {
	if !u.weekday {
		return true
	}
	return ((int64(u.p.StartWeekday)+d)%7+7)%7 < 5 // day -1 (before time 0) is a Sunday when time 0 is a Monday
}

// interval returns the working interval that starts on day d.
func (u *User) interval(d int64) (des.Time, des.Time) {
	s := des.Time(d)*des.Day + u.start
	return s, s + (u.p.WorkEnd - u.p.WorkStart)
}

// Working reports whether the user works at time t.
func (u *User) Working(t des.Time) bool {
	d0 := int64(t / des.Day)
	for d := d0 - 2; d <= d0; d++ {
		if d < 0 && u.start+des.Time(d)*des.Day+(u.p.WorkEnd-u.p.WorkStart) <= 0 {
			continue
		}
		if s, e := u.interval(d); u.workDay(d) && t >= s && t < e {
			return true
		}
	}
	return false
}

// NextWake is the first working instant at or after t.
func (u *User) NextWake(t des.Time) des.Time {
	if u.Working(t) {
		return t
	}
	d0 := int64(t / des.Day)
	for d := d0 - 1; d <= d0+8; d++ {
		if s, _ := u.interval(d); u.workDay(d) && s >= t {
			return s
		}
	}
	return des.Never // unreachable with valid parameters: every week has a working day
}

func (u *User) seconds(c *CDF) des.Time { return des.Seconds(c.Quantile(u.rng.Float64())) }

func (u *User) count(c *CDF) int {
	n := int(math.Round(c.Quantile(u.rng.Float64())))
	if n < 1 {
		n = 1
	}
	return n
}

func (u *User) newTemplate() Job {
	j := Job{Node: u.node, DiskMB: float32(u.p.TaskDiskMB)}
	if u.p.AppSource == "cdf" {
		j.LengthMI = u.d.TaskLength.Quantile(u.rng.Float64())
		j.Tasks = int32(u.count(u.d.JobSize))
		j.MemMB = float32(u.d.TaskMaxMem.Quantile(u.rng.Float64()))
		return j
	}
	c := u.d.Apps.Sample(u.rng.Float64())
	j.LengthMI, j.Tasks = c.LengthMI, int32(c.Tasks)
	if c.MemKB < 0 {
		j.MemMB = float32(u.d.TaskMaxMem.Quantile(u.rng.Float64()))
	} else {
		j.MemMB = float32(c.MemKB / 1024)
	}
	return j
}

// Deadline applies the paper's rule to a job of work MI submitted at t.
func (u *User) deadline(t des.Time, work float64) des.Time {
	U := 1 - u.rng.Float64() // (0, 1]
	d := t + des.Seconds(DeadlineSlack(u.p, U, work/u.splat, work/u.power))
	return u.NextWake(d)
}

// DeadlineSlack is the deadline rule of the paper (§7.2): ∆ = (A/U − 1)/B
// minutes (A = DeadlineA, B = DeadlineB, U the uniform draw in (0, 1]),
// in seconds, clipped to [δmin, δmax] (taken in either order: δmin =
// a·n/S_plat can exceed δmax = a·n/s_u when the user perceives the
// platform as slower than its own machine).
func DeadlineSlack(p *Params, U, dmin, dmax float64) float64 {
	delta := (p.DeadlineA/U - 1) / p.DeadlineB * 60
	lo, hi := math.Min(dmin, dmax), math.Max(dmin, dmax)
	return math.Max(lo, math.Min(hi, delta))
}

// ContinueProbability is the probability that a user continues (think
// time) rather than taking a break after a batch whose response time was
// rt minutes: ContinueA/(1 + ContinueB·rt), 0.8/(1 + 0.05·rt) by default.
func ContinueProbability(p *Params, rt float64) float64 {
	return p.ContinueA / (1 + p.ContinueB*rt)
}

// Next returns the user's next job. Jobs come in non-decreasing submission
// order.
func (u *User) Next() Job {
	if u.batchLeft == 0 {
		u.batchLeft = u.count(u.d.BatchWidth)
		u.repeatLeft = 0
		u.batchStart, u.batchEnd = u.t, u.t
	} else {
		u.t += u.seconds(u.d.InterBatch)
	}
	if u.repeatLeft == 0 {
		u.tmpl = u.newTemplate()
		u.repeatLeft = u.count(u.d.JobRepeat)
	}
	u.repeatLeft--
	j := u.tmpl
	j.Submit = u.t
	j.ID = uint64(u.node)<<32 | u.seq
	u.seq++
	work := j.LengthMI * float64(j.Tasks)
	j.Deadline = u.deadline(u.t, work)
	resp := des.Seconds(j.LengthMI/u.p.RefPowerMIPS) + u.p.ResponseOverhead
	if e := u.t + resp; e > u.batchEnd {
		u.batchEnd = e
	}
	if resp > 0 {
		u.splat = u.p.SpeedEMA*u.splat + (1-u.p.SpeedEMA)*(work/resp.Seconds())
	}
	u.batchLeft--
	if u.batchLeft == 0 {
		rt := (u.batchEnd - u.batchStart).Seconds() / 60
		next := u.batchEnd
		if u.rng.Float64() < ContinueProbability(u.p, rt) {
			next += u.seconds(u.d.ThinkTime)
		} else {
			next += u.seconds(u.d.BreakTime)
		}
		u.t = u.NextWake(next)
	}
	return j
}

// Generate returns the jobs of users 0..nodes-1 submitted before horizon,
// sorted by (submission time, node, id). Node powers come from
// Params.NodeOf(seed, i).
func Generate(p *Params, d *Distributions, seed uint64, nodes int, horizon des.Time) ([]Job, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if nodes < 1 {
		return nil, fmt.Errorf("workload: nodes = %d: want >= 1", nodes)
	}
	var jobs []Job
	for i := 0; i < nodes; i++ {
		u := NewUser(p, d, seed, int32(i), p.NodeOf(seed, i).PowerMIPS)
		for {
			j := u.Next()
			if j.Submit >= horizon {
				break
			}
			jobs = append(jobs, j)
		}
	}
	SortJobs(jobs)
	return jobs, nil
}

// ReadParams reads parameters as JSON (the tags of Params; durations in
// nanoseconds) over DefaultParams: fields left out keep their defaults.
// The JSON is read by the rules of the project's JSON inputs
// (internal/jsonin); unknown fields, trailing data and invalid values are
// errors naming name and the field.
func ReadParams(r io.Reader, name string) (Params, error) {
	p := DefaultParams()
	data, err := io.ReadAll(r)
	if err != nil {
		return Params{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := jsonin.Decode(data, &p, name); err != nil {
		return Params{}, fmt.Errorf("%w (want a JSON object with the fields of 'volsched overlay workload --print-params')", err)
	}
	if err := p.Validate(); err != nil {
		return Params{}, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}
