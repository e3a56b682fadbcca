package workload

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/volsched/volsched/des"
)

// SWFJob is one job line of a Standard Workload Format log (Parallel
// Workloads Archive): 18 fields, -1 meaning "unknown". Times are seconds,
// memory kilobytes per processor.
type SWFJob struct {
	Line       int // line of the log (ReadSWF), for error messages
	Number     int64
	Submit     float64 // seconds since the log's start
	Wait       float64
	Run        float64
	AllocProcs int64
	AvgCPU     float64
	UsedMem    float64
	ReqProcs   int64
	ReqTime    float64
	ReqMem     float64
	Status     int64
	User       int64
	Group      int64
	Executable int64
	Queue      int64
	Partition  int64
	Preceding  int64
	ThinkTime  float64
}

// ReadSWF parses an SWF log. Lines starting with ';' (the header) and blank
// lines are skipped. Errors name the file, line, field and value.
func ReadSWF(r io.Reader, name string) ([]SWFJob, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	var jobs []SWFJob
	fieldNames := [18]string{"job number", "submit time", "wait time", "run time", "allocated processors",
		"average CPU time", "used memory", "requested processors", "requested time", "requested memory",
		"status", "user id", "group id", "executable number", "queue number", "partition number",
		"preceding job", "think time"}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == ';' {
			continue
		}
		f := strings.Fields(s)
		if len(f) != 18 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 18 (SWF)", name, line, len(f))
		}
		var v [18]float64
		for i, fld := range f {
			x, err := strconv.ParseFloat(fld, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e15 {
				return nil, fmt.Errorf("%s:%d: field %d (%s) %q: want a number", name, line, i+1, fieldNames[i], fld)
			}
			v[i] = x
		}
		j := SWFJob{Line: line, Number: int64(v[0]), Submit: v[1], Wait: v[2], Run: v[3], AllocProcs: int64(v[4]),
			AvgCPU: v[5], UsedMem: v[6], ReqProcs: int64(v[7]), ReqTime: v[8], ReqMem: v[9],
			Status: int64(v[10]), User: int64(v[11]), Group: int64(v[12]), Executable: int64(v[13]),
			Queue: int64(v[14]), Partition: int64(v[15]), Preceding: int64(v[16]), ThinkTime: v[17]}
		if j.Submit < 0 || j.Submit > des.MaxSeconds {
			return nil, fmt.Errorf("%s:%d: field 2 (submit time) %q: want seconds in [0, %.4g]", name, line, f[1], des.MaxSeconds)
		}
		if j.Run > des.MaxSeconds {
			return nil, fmt.Errorf("%s:%d: field 4 (run time) %q: want seconds up to %.4g (or -1: unknown)", name, line, f[3], des.MaxSeconds)
		}
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return jobs, nil
}

// SWFOptions says how SWF jobs become volsched jobs.
type SWFOptions struct {
	// Nodes is the number of nodes: the job of SWF user u is submitted by
	// node u mod Nodes (by job number mod Nodes when the user is unknown).
	Nodes int
	// PowerMIPS converts run time into task length: a task of an SWF job
	// that ran r seconds has length r·PowerMIPS MI.
	PowerMIPS float64
}

// FromSWF converts SWF jobs: one task per processor (requested, else
// allocated), length from the run time, memory from the requested memory
// (else the used memory; KB per processor), no deadline. Jobs with unknown
// run time or processor count, or more than 2^31−1 processors, are
// skipped; their number is returned.
func FromSWF(in []SWFJob, opt SWFOptions) ([]Job, int, error) {
	if opt.Nodes < 1 || opt.Nodes > math.MaxInt32 {
		return nil, 0, fmt.Errorf("SWF conversion: nodes = %d: want 1..%d", opt.Nodes, math.MaxInt32)
	}
	if !(opt.PowerMIPS > 0) || math.IsInf(opt.PowerMIPS, 0) {
		return nil, 0, fmt.Errorf("SWF conversion: power = %g MIPS: want a finite value > 0", opt.PowerMIPS)
	}
	var out []Job
	skipped := 0
	for i, s := range in {
		procs := s.ReqProcs
		if procs <= 0 {
			procs = s.AllocProcs
		}
		if procs <= 0 || procs > math.MaxInt32 || !(s.Run > 0) {
			skipped++
			continue
		}
		key := s.User
		if key < 0 {
			key = s.Number
		}
		if key < 0 {
			key = int64(i)
		}
		length := s.Run * opt.PowerMIPS
		if length > MaxLengthMI {
			where := fmt.Sprintf("SWF job %d", s.Number)
			if s.Line > 0 {
				where = fmt.Sprintf("line %d (job %d)", s.Line, s.Number)
			}
			return nil, 0, fmt.Errorf("%s: run time %g s at %g MIPS is a task of %g MI, over the %g MI a task may have", where, s.Run, opt.PowerMIPS, length, MaxLengthMI)
		}
		mem := s.ReqMem
		if !(mem > 0) {
			mem = s.UsedMem
		}
		if !(mem > 0) {
			mem = 0
		}
		out = append(out, Job{Submit: des.Seconds(s.Submit), Node: int32(key % int64(opt.Nodes)),
			Tasks: int32(procs), ID: uint64(i), LengthMI: length, MemMB: float32(mem / 1024)})
	}
	SortJobs(out)
	return out, skipped, nil
}
