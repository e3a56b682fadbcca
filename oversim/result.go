package oversim

import (
	"runtime"
	"syscall"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/workload"
)

// Result is the summary of a run (written as summary.json by the CLI).
//
// Numbers in JSON (docs/design.md): every number of a Result is finite for
// a Config that Validate accepts — counts, sums of task lengths bounded by
// workload.MaxLengthMI, times bounded by MaxDuration, means and rates
// computed only over a positive count or duration, and link use over a
// bandwidth of at least MinBandwidth — so no field needs jsonnum's null;
// TestResultFinite checks the extremes.
type Result struct {
	Policy              overlay.Policy `json:"policy"`
	Scheduler           string         `json:"scheduler,omitempty"` // centralized or random; empty: the overlay
	Link                string         `json:"link"`
	Nodes               int            `json:"nodes"`
	SFMax               int            `json:"sfmax"`
	Hours               float64        `json:"hours"`
	Seed                uint64         `json:"seed"`
	UpdateBandwidth     float64        `json:"update_bandwidth_Bps"`
	ChurnMedianMinutes  float64        `json:"churn_median_minutes,omitempty"`
	CatastropheFraction float64        `json:"catastrophe_fraction,omitempty"`
	CatastropheHours    float64        `json:"catastrophe_hours,omitempty"`
	SimulatedSeconds    float64        `json:"simulated_seconds"`
	// WorkloadParams are the workload and node parameters when they are
	// not workload.DefaultParams() (e.g. --params).
	WorkloadParams *workload.Params `json:"workload_params,omitempty"`
	// Workload names the fitted model the site-level distributions were
	// built from when they were not read from the empirical files (the
	// default without --data, docs/workload-model.md).
	Workload string `json:"workload,omitempty"`

	JobsSubmitted         uint64  `json:"jobs_submitted"`
	TasksSubmitted        uint64  `json:"tasks_submitted"`
	TasksResubmitted      uint64  `json:"tasks_resubmitted"`
	TasksFinished         uint64  `json:"tasks_finished"`
	TasksFinishedInTime   uint64  `json:"tasks_finished_in_time"`
	ComputationFinishedMI float64 `json:"computation_finished_mi"`
	TasksUnallocated      uint64  `json:"tasks_unallocated"`
	TasksAborted          uint64  `json:"tasks_aborted"`
	TasksInQueues         uint64  `json:"tasks_in_queues_at_end"`
	TasksInFlight         uint64  `json:"tasks_in_flight_at_end"`
	Failures              uint64  `json:"failures"`

	// JobsCompleted counts applications whose last outstanding task
	// finished (tasks reported unallocated are not waited for); their
	// makespan runs from submission to the end of that task.
	JobsCompleted uint64  `json:"jobs_completed"`
	MakespanMean  float64 `json:"makespan_mean_s"`
	MakespanMax   float64 `json:"makespan_max_s"`

	AllocatedRequests uint64  `json:"allocated_requests"`
	AllocTimeMean     float64 `json:"alloc_time_mean_s"`
	AllocTimeMax      float64 `json:"alloc_time_max_s"`

	ProbesSubmitted       uint64  `json:"probes_submitted,omitempty"`
	ProbesAllocated       uint64  `json:"probes_allocated,omitempty"`
	ProbeAllocTimeMean    float64 `json:"probe_alloc_time_mean_s,omitempty"`
	ProbeAllocTimeMax     float64 `json:"probe_alloc_time_max_s,omitempty"`
	ProbeTasksUnallocated uint64  `json:"probe_tasks_unallocated,omitempty"`

	ThroughputTasksPerHour float64       `json:"throughput_tasks_per_hour"`
	PeakLinkUse            []des.LinkUse `json:"peak_link_use"`

	Events            uint64  `json:"events"`
	MessagesDelivered uint64  `json:"messages_delivered"`
	MessagesSent      uint64  `json:"messages_sent"`
	BytesSent         uint64  `json:"bytes_sent"`
	WallSeconds       float64 `json:"wall_seconds"`
	EventsPerSecond   float64 `json:"events_per_second"`
	// CPUSeconds is the process's user+system CPU time during the run (on
	// a shared machine wall time overstates the cost); EventsPerCPUSecond
	// is events over it.
	CPUSeconds         float64 `json:"cpu_seconds"`
	EventsPerCPUSecond float64 `json:"events_per_cpu_second"`
	// Resumes is the number of times the run was restored from a
	// checkpoint; WallSeconds and CPUSeconds cover all its sittings (not
	// the time between them).
	Resumes      int     `json:"resumes,omitempty"`
	HeapBytes    uint64  `json:"heap_bytes_at_end"`
	BytesPerNode float64 `json:"heap_bytes_per_node"`
}

// Conserved reports whether every task is accounted for: each submitted
// task (original or resubmitted) is finished, reported unallocated,
// aborted (and resubmitted after the detection timeout), still queued at an
// execution node, or still travelling in a request.
func (r *Result) Conserved() bool {
	return r.TasksSubmitted+r.TasksResubmitted ==
		r.TasksFinished+r.TasksUnallocated+r.TasksAborted+r.TasksInQueues+r.TasksInFlight
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (s *Sim) result(t des.Time, wall time.Duration) *Result {
	r := s.st
	r.SimulatedSeconds = t.Seconds()
	for _, runs := range s.runs {
		for _, x := range runs {
			r.TasksInQueues += uint64(x.n)
		}
	}
	for i := range s.jobs {
		r.TasksInFlight += uint64(s.jobs[i].unplaced)
	}
	if r.AllocatedRequests > 0 {
		r.AllocTimeMean = s.allocSum / float64(r.AllocatedRequests)
		r.AllocTimeMax = s.allocMax
	}
	if r.JobsCompleted > 0 {
		r.MakespanMean = s.makespanSum / float64(r.JobsCompleted)
	}
	if r.ProbesAllocated > 0 {
		r.ProbeAllocTimeMean = s.probeSum / float64(r.ProbesAllocated)
	}
	if t > 0 {
		r.ThroughputTasksPerHour = float64(r.TasksFinished) / (t.Seconds() / 3600)
	}
	r.PeakLinkUse = s.net.PeakUse(t)
	r.Events = s.eng.Processed()
	r.MessagesSent = s.net.Messages()
	r.BytesSent = s.net.Bytes()
	r.WallSeconds = s.prevWall + wall.Seconds()
	r.Resumes = s.resumes
	if r.WallSeconds > 0 {
		r.EventsPerSecond = float64(r.Events) / r.WallSeconds
	}
	r.CPUSeconds = s.prevCPU + (cpuTime() - s.cpuStart).Seconds()
	if r.CPUSeconds > 0 {
		r.EventsPerCPUSecond = float64(r.Events) / r.CPUSeconds
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapBytes = ms.HeapAlloc
	r.BytesPerNode = float64(ms.HeapAlloc) / float64(r.Nodes)
	return &r
}
