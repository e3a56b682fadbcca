package oversim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/internal/ckpt"
	"github.com/volsched/volsched/internal/jsondiff"
	"github.com/volsched/volsched/overlay"
	"github.com/volsched/volsched/workload"
)

// Checkpoints (docs/overlay-sim.md, "Checkpoint and resume").
//
// A checkpoint holds the whole dynamic state of a run at an event
// boundary: the event queue (time, sequence number, kind, vertex, ref),
// the clock and the count of events handled, the network's link,
// processor and traffic state, every router and leaf (summaries, bounds,
// flags, send schedule, local scheduler queues), the scheduled ticks, the
// tasks each leaf runs, the churn counters, every user's generator state
// and next job, the pools of messages in flight with their free lists, the
// job table with its free list, the result accumulators, the random
// reference's generator, the number of timeline rows written, and the CPU
// and wall time spent so far.
//
// New rebuilds what is a pure function of the Config and is not stored:
// the tree, leafOf/rankOf/leafV/routerV, the routers' addresses, each
// node's hardware (its Exec is built by newExec and its state loaded over
// it), the users' working hours (NewUser), the catastrophe's victims, the
// policy and the network's pair delays (a hash of the seed). Derived state
// that the loaded state determines is rebuilt by rebuildDerived.

const (
	checkpointMagic   = "volsched overlay sim checkpoint\n"
	checkpointVersion = 3 // 3: summaries and executors in their policy's encoding (overlay.SummaryCodec)
	// CheckpointFile is the name of the checkpoint in a run's directory.
	CheckpointFile = "checkpoint.bin"
)

// ErrStopped is Run's error when it stops at the event count set by StopAt.
var ErrStopped = errors.New("stopped at the requested event count")

// MismatchError says that a checkpoint belongs to another run.
type MismatchError struct {
	Field, Checkpoint, Run string
}

func (e *MismatchError) Error() string {
	if strings.HasPrefix(e.Checkpoint, "{") && strings.HasPrefix(e.Run, "{") { // --params: the fields that differ
		return fmt.Sprintf("the checkpoint was written by a different run: %s differ: %s", e.Field,
			jsondiff.Describe([]byte(e.Checkpoint), []byte(e.Run), "the checkpoint", "this run"))
	}
	a, b := excerpt(e.Checkpoint, e.Run), excerpt(e.Run, e.Checkpoint)
	return fmt.Sprintf("the checkpoint was written by a different run: %s is %s in the checkpoint, %s in this run", e.Field, a, b)
}

// excerpt returns s, or for a long value (--params is a JSON object) the
// part of s around its first difference from t.
func excerpt(s, t string) string {
	const width = 40
	if len(s) <= 2*width {
		return s
	}
	i := 0
	for i < len(s) && i < len(t) && s[i] == t[i] {
		i++
	}
	lo, hi := max(i-width, 0), min(i+width, len(s))
	out := s[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out
}

type idField struct{ name, value string }

// identity lists everything that defines a run, named as the CLI's flags
// (or as Config's fields for those without a flag), in a fixed order.
func (c *Config) identity() []idField {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprintf("%+v", v)
		}
		return string(b)
	}
	sched := c.Scheduler
	if sched == "" {
		sched = "overlay"
	}
	o := c.Options
	return []idField{
		{"--policy", o.Policy.String()},
		{"--scheduler", sched},
		{"--sfmax", strconv.Itoa(o.SFMax)},
		{"--beta", g(o.Beta)},
		{"--distance", o.Distance.String()},
		{"--nodes", strconv.Itoa(c.Nodes)},
		{"--hours", g(c.Length.Seconds() / 3600)},
		{"--link", js(c.Link)},
		{"processing", js(c.Proc)},
		{"--update-bw", g(c.UpdateBandwidth)},
		{"--churn", c.Churn.Median.String()},
		{"--fail", js(c.Catastrophe)},
		{"--detect", c.DetectTimeout.String()},
		{"--seed", strconv.FormatUint(c.Seed, 10)},
		{"workload (--workload, --swf or --data)", c.workloadID()},
		{"--params", js(c.Params)},
		{"--probe-every", c.ProbeEvery.String()},
		{"--probe-tasks", strconv.Itoa(int(c.ProbeTasks))},
		{"--probe-length", g(c.ProbeLengthMI)},
		{"--central-per-node", c.CentralPerNode.String()},
		{"no-deadline slack", c.NoDeadlineSlack.String()},
		{"DP max per node", strconv.Itoa(o.MaxPerNode)},
		{"--sample", c.Sample.String()},
	}
}

// Key is a short name of the run for file names: its policy, scheduler,
// SF_max and size, then a hash of everything that defines it (the fields
// a checkpoint is checked against), so two runs share a key only when
// they give the same results.
func (c *Config) Key() string {
	h := sha256.New()
	for _, f := range c.identity() {
		fmt.Fprintf(h, "%s=%s\n", f.name, f.value)
	}
	sched := c.Scheduler
	if sched == "" {
		sched = "overlay"
	}
	return fmt.Sprintf("%s-%s-sf%d-n%d-%x", c.Policy, sched, c.SFMax, c.Nodes, h.Sum(nil)[:10])
}

// workloadID is a hash of the replayed trace or of the site-level
// distributions' values (not their file names).
func (c *Config) workloadID() string {
	h := sha256.New()
	var b [8]byte
	u := func(x uint64) { binary.LittleEndian.PutUint64(b[:], x); h.Write(b[:]) }
	f := func(x float64) { u(math.Float64bits(x)) }
	if c.Jobs != nil {
		for _, j := range c.Jobs {
			u(uint64(j.Submit))
			u(uint64(j.Node))
			u(uint64(j.Tasks))
			u(j.ID)
			f(j.LengthMI)
			u(uint64(math.Float32bits(j.MemMB))<<32 | uint64(math.Float32bits(j.DiskMB)))
			u(uint64(j.Deadline))
		}
		return fmt.Sprintf("trace of %d jobs, sha256 %x", len(c.Jobs), h.Sum(nil)[:12])
	}
	if d := c.Dists; d != nil {
		if v, ok := distsIDs.Load(d); ok {
			return v.(string)
		}
		for _, x := range []*workload.CDF{d.ThinkTime, d.BreakTime, d.BatchWidth, d.InterBatch, d.JobRepeat,
			d.JobSize, d.TaskLength, d.TaskMaxMem, d.TaskDeadline} {
			if x == nil {
				u(math.MaxUint64)
				continue
			}
			u(uint64(len(x.Values)))
			for i := range x.Values {
				f(x.Values[i])
			}
			for i := range x.Probs {
				f(x.Probs[i])
			}
		}
		if d.Apps != nil {
			for _, a := range d.Apps.Classes {
				f(a.LengthMI)
				u(uint64(a.Tasks))
				f(a.RelDeadline)
				f(a.MemKB)
				f(a.Freq)
			}
		}
	}
	id := fmt.Sprintf("site-level model, distributions sha256 %x", h.Sum(nil)[:12])
	if c.Dists != nil {
		distsIDs.Store(c.Dists, id)
	}
	return id
}

// distsIDs caches workloadID of loaded distributions (immutable once
// loaded; the application histogram is megabytes), by pointer.
var distsIDs sync.Map

// binaryVersion identifies the code that runs the simulation: the module
// version, the VCS revision when the binary was stamped with it, and a
// SHA-256 of the executable file (builds here run with -buildvcs=false, so
// the hash is what tells two builds apart; rebuilding the same code with
// the same toolchain gives the same bytes).
var binaryVersion = sync.OnceValue(func() string {
	v := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v += " " + s.Value
			case "vcs.modified":
				if s.Value == "true" {
					v += " (modified)"
				}
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				v += fmt.Sprintf(", executable sha256 %x", h.Sum(nil)[:12])
			}
			f.Close()
		}
	}
	return v
})

// StopAt makes Run stop with ErrStopped right after handling event number
// n (0: never). Tests use it to interrupt a run at an exact point.
func (s *Sim) StopAt(n uint64) { s.stopAt = n }

// OnCheckpoint makes Run call save at an event boundary whenever due
// returns true; due is consulted every 4,096 events. An error of save
// stops the run with that error.
func (s *Sim) OnCheckpoint(due func() bool, save func() error) {
	s.ckptDue, s.ckptSave = due, save
}

// TimelineRows is the number of timeline rows the run emitted at its
// sampling times so far (the final row of Run is not counted).
func (s *Sim) TimelineRows() uint64 { return s.rows }

// Resumes is the number of times the run was restored from a checkpoint.
func (s *Sim) Resumes() int { return s.resumes }

// Now is the simulated time of the last event handled, and Events their
// number.
func (s *Sim) Now() des.Time { return s.eng.Now() }

// Events is the number of events handled so far (across resumes).
func (s *Sim) Events() uint64 { return s.eng.Processed() }

// Spent is the CPU and wall seconds of the run so far, over all its
// sittings.
func (s *Sim) Spent() (cpu, wall float64) {
	cpu, wall = s.prevCPU, s.prevWall
	if !s.runStart.IsZero() {
		cpu += (cpuTime() - s.cpuStart).Seconds()
		wall += time.Since(s.runStart).Seconds()
	}
	return cpu, wall
}

// SaveCheckpoint writes the run's state to path atomically (a temporary
// file in the same directory, synced, then renamed over path), so that an
// interruption while writing leaves the previous checkpoint intact. It
// returns the checkpoint's size. Call it between events: after Run
// returned, or from the save function of OnCheckpoint.
func (s *Sim) SaveCheckpoint(path string) (int64, error) {
	if !s.started {
		return 0, fmt.Errorf("checkpoint: the run has not started")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename: no such file
	n, err := s.WriteCheckpoint(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if e := tmp.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		// make the rename durable
		if d, e := os.Open(filepath.Dir(path)); e == nil {
			d.Sync()
			d.Close()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return n, nil
}

// WriteCheckpoint writes the run's state to w (see SaveCheckpoint).
func (s *Sim) WriteCheckpoint(out io.Writer) (int64, error) {
	w := ckpt.NewWriter(out)
	w.String(checkpointMagic)
	w.Uvarint(checkpointVersion)
	w.String(binaryVersion())
	id := s.cfg.identity()
	w.Uvarint(uint64(len(id)))
	for _, f := range id {
		w.String(f.name)
		w.String(f.value)
	}
	cpu, wall := s.Spent()
	w.F64(cpu)
	w.F64(wall)
	w.Int(s.resumes)
	w.Uvarint(s.rows)
	s.writeState(w)
	return w.Finish()
}

func (s *Sim) writeState(w *ckpt.Writer) {
	// Engine.
	now, processed, q := s.eng.Snapshot()
	w.Varint(int64(now))
	w.Uvarint(processed)
	w.Uvarint(uint64(q.Len()))
	seq := q.Each(func(at des.Time, seq uint64, ev event) {
		w.Varint(int64(at))
		w.Uvarint(seq)
		w.U8(uint8(ev.kind))
		w.Varint(int64(ev.v))
		w.Varint(int64(ev.ref))
	})
	w.Uvarint(seq)
	s.net.SaveState(w)
	// Scheduled ticks: Never (most vertices) as 0.
	w.Uvarint(uint64(len(s.wake)))
	for _, t := range s.wake {
		if t == des.Never {
			w.Uvarint(0)
		} else {
			w.Uvarint(uint64(t) + 1)
		}
	}
	// Roles. Summaries are shared (a router's last aggregate is what its
	// father holds for it, a leaf's last summary likewise, messages in
	// flight point to them): the encoder writes each once.
	enc := overlay.NewSummaryEncoder()
	w.Uvarint(uint64(len(s.routers)))
	for i := range s.routers {
		s.routers[i].SaveState(w, enc)
	}
	w.Uvarint(uint64(len(s.leaves)))
	for i := range s.leaves {
		s.leaves[i].SaveState(w, enc)
	}
	for _, runs := range s.runs {
		w.Uvarint(uint64(len(runs)))
		for _, r := range runs {
			w.Varint(int64(r.job))
			w.Varint(int64(r.n))
		}
	}
	w.Bool(s.churnK != nil)
	for _, k := range s.churnK {
		w.Uvarint(uint64(k))
	}
	w.Bool(s.users != nil)
	for i, u := range s.users {
		u.SaveState(w)
		workload.WriteJob(w, &s.nextJob[i])
	}
	// Messages in flight, with the free slots (events refer to slots).
	w.Uvarint(uint64(len(s.msgs)))
	for i := range s.msgs {
		enc.WriteMsg(w, &s.msgs[i])
	}
	writeI32s(w, s.freeMsg)
	w.Uvarint(uint64(len(s.small)))
	for i := range s.small {
		m := &s.small[i]
		enc.Write(w, m.sum)
		w.F64(m.bound)
		w.Varint(int64(m.from))
		w.U8(uint8(m.kind))
	}
	writeI32s(w, s.freeSml)
	// Jobs.
	w.Uvarint(uint64(len(s.jobs)))
	for i := range s.jobs {
		j := &s.jobs[i]
		w.Varint(int64(j.submit))
		w.F64(j.deadline)
		w.F64(j.length)
		w.F32(j.mem)
		w.F32(j.disk)
		w.Varint(int64(j.node))
		w.Varint(int64(j.tasks))
		w.Varint(int64(j.unplaced))
		w.Varint(int64(j.open))
		w.Bool(j.allocated)
		w.Bool(j.probe)
	}
	writeI32s(w, s.freeJob)
	// Accumulators: the whole Result (JSON round-trips float64 exactly),
	// so a counter added to Result later is saved without a change here.
	st, err := json.Marshal(&s.st)
	if err != nil {
		w.Fail(fmt.Errorf("checkpoint: results: %w", err))
	}
	w.Bytes(st)
	w.F64(s.allocSum)
	w.F64(s.allocMax)
	w.F64(s.probeSum)
	w.F64(s.makespanSum)
	w.F64(s.rowMakespan)
	w.Varint(int64(s.lastJob))
	// The random reference's generator.
	w.Bool(s.randSrc != nil)
	if s.randSrc != nil {
		b, err := s.randSrc.MarshalBinary()
		if err != nil {
			w.Fail(err)
		}
		w.Bytes(b)
	}
}

func writeI32s(w *ckpt.Writer, x []int32) {
	w.Uvarint(uint64(len(x)))
	for _, v := range x {
		w.Varint(int64(v))
	}
}

func readI32s(r *ckpt.Reader, limit int) []int32 {
	n := r.Len(1)
	if r.Err() != nil {
		return nil
	}
	x := make([]int32, n)
	for i := range x {
		x[i] = int32(r.Int())
		if x[i] < 0 || int(x[i]) >= limit {
			r.Failf("free slot %d of %d", x[i], limit)
			return nil
		}
	}
	return x
}

// LoadCheckpoint restores the state saved in path into s, which must come
// fresh from New with the Config of the run that wrote it (any difference
// is a *MismatchError naming the first differing field). A truncated or
// damaged file is an error wrapping ErrCorrupt. Run then continues the run.
func (s *Sim) LoadCheckpoint(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := s.ReadCheckpoint(f, fi.Size()); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// ErrCorrupt marks a truncated or damaged checkpoint.
var ErrCorrupt = ckpt.ErrCorrupt

// ReadCheckpoint restores the state of the size bytes of r (see
// LoadCheckpoint).
func (s *Sim) ReadCheckpoint(in io.ReaderAt, size int64) error {
	if s.started || s.eng.Processed() > 0 {
		return fmt.Errorf("checkpoint: load it into a Sim fresh from New")
	}
	// The header first, so that a file of another kind or version gets
	// the right message, then the checksum of the whole file.
	r := ckpt.NewReader(in, size)
	if magic := r.String(); r.Err() != nil || magic != checkpointMagic {
		return fmt.Errorf("%w: not a volsched overlay sim checkpoint", ErrCorrupt)
	}
	if v := r.Uvarint(); r.Err() == nil && v != checkpointVersion {
		return fmt.Errorf("checkpoint format version %d: this binary reads version %d", v, checkpointVersion)
	}
	if err := ckpt.Check(in, size); err != nil {
		return err
	}
	if v, want := r.String(), binaryVersion(); r.Err() == nil && v != want {
		return &MismatchError{Field: "the volsched build", Checkpoint: strconv.Quote(v), Run: strconv.Quote(want) +
			" (resume with the binary that wrote the checkpoint: the simulation code may differ)"}
	}
	id := s.cfg.identity()
	n := r.Len(2)
	for i := 0; i < n && r.Err() == nil; i++ {
		name, value := r.String(), r.String()
		if r.Err() != nil {
			break
		}
		if i >= len(id) || id[i].name != name {
			return fmt.Errorf("%w: field %q of the run's identity, unknown to this binary", ErrCorrupt, name)
		}
		if id[i].value != value {
			return &MismatchError{Field: name, Checkpoint: value, Run: id[i].value}
		}
	}
	if r.Err() == nil && n != len(id) {
		return fmt.Errorf("%w: %d fields of the run's identity, want %d", ErrCorrupt, n, len(id))
	}
	s.prevCPU, s.prevWall = r.F64(), r.F64()
	s.resumes = r.Int() + 1
	s.rows = r.Uvarint()
	s.readState(r)
	if err := r.End(); err != nil {
		return err
	}
	s.started = true
	s.rebuildDerived()
	return nil
}

// queued is an event read from a checkpoint.
type queued struct {
	at  des.Time
	seq uint64
	ev  event
}

func (s *Sim) readState(r *ckpt.Reader) {
	fail := r.Failf
	// Engine.
	now, processed := des.Time(r.Varint()), r.Uvarint()
	n := r.Len(5)
	if r.Err() != nil {
		return
	}
	q := s.eng.Restore(now, processed)
	evs := make([]queued, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		e := queued{at: des.Time(r.Varint()), seq: r.Uvarint()}
		e.ev = event{kind: evKind(r.U8()), v: int32(r.Int()), ref: int32(r.Int())}
		if e.at < now || e.ev.kind > evServer {
			fail("event %d: kind %d at %v before the clock %v", i, e.ev.kind, e.at, now)
		}
		evs = append(evs, e)
	}
	seq := r.Uvarint()
	if r.Err() != nil {
		return
	}
	q.Restore(seq, len(evs))
	for _, e := range evs {
		q.Append(e.at, e.seq, e.ev)
	}
	if !q.Valid() {
		fail("the event queue is not a heap")
		return
	}
	s.net.LoadState(r)
	if k := r.Len(1); r.Err() == nil && k != len(s.wake) {
		fail("%d vertices, want %d", k, len(s.wake))
	}
	for v := range s.wake {
		if x := r.Uvarint(); x == 0 {
			s.wake[v] = des.Never
		} else {
			s.wake[v] = des.Time(x - 1)
		}
	}
	dec := &overlay.SummaryDecoder{}
	if k := r.Len(1); r.Err() == nil && k != len(s.routers) {
		fail("%d routers, want %d", k, len(s.routers))
	}
	for i := range s.routers {
		if r.Err() != nil {
			return
		}
		s.routers[i].LoadState(r, dec)
	}
	if k := r.Len(1); r.Err() == nil && k != len(s.leaves) {
		fail("%d leaves, want %d", k, len(s.leaves))
	}
	for i := range s.leaves {
		if r.Err() != nil {
			return
		}
		s.leaves[i].LoadState(r, dec)
	}
	for i := range s.runs {
		k := r.Len(2)
		if r.Err() != nil {
			return
		}
		s.runs[i] = nil
		if k > 0 {
			s.runs[i] = make([]taskRun, k)
		}
		for j := range s.runs[i] {
			s.runs[i][j] = taskRun{job: int32(r.Int()), n: int32(r.Int())}
		}
	}
	if has := r.Bool(); r.Err() == nil && has != (s.churnK != nil) {
		fail("churn counters present: %v, want %v", has, s.churnK != nil)
	}
	for i := range s.churnK {
		x := r.Uvarint()
		if x > math.MaxUint32 {
			fail("churn counter %d", x)
		}
		s.churnK[i] = uint32(x)
	}
	if has := r.Bool(); r.Err() == nil && has != (s.users != nil) {
		fail("users present: %v, want %v", has, s.users != nil)
	}
	for i, u := range s.users {
		if r.Err() != nil {
			return
		}
		u.LoadState(r)
		s.nextJob[i] = workload.ReadJob(r)
	}
	// Messages in flight.
	k := r.Len(2)
	if r.Err() != nil {
		return
	}
	s.msgs = make([]overlay.Msg, k)
	for i := range s.msgs {
		s.msgs[i] = dec.ReadMsg(r)
	}
	s.freeMsg = readI32s(r, len(s.msgs))
	k = r.Len(4)
	if r.Err() != nil {
		return
	}
	s.small = make([]smallMsg, k)
	for i := range s.small {
		m := &s.small[i]
		m.sum = dec.Read(r)
		m.bound = r.F64()
		m.from = overlay.Addr(r.Int())
		m.kind = overlay.Kind(r.U8())
	}
	s.freeSml = readI32s(r, len(s.small))
	// Jobs.
	k = r.Len(20)
	if r.Err() != nil {
		return
	}
	s.jobs = make([]jobState, k)
	for i := range s.jobs {
		j := &s.jobs[i]
		j.submit, j.deadline, j.length = des.Time(r.Varint()), r.F64(), r.F64()
		j.mem, j.disk = r.F32(), r.F32()
		j.node, j.tasks, j.unplaced, j.open = int32(r.Int()), int32(r.Int()), int32(r.Int()), int32(r.Int())
		j.allocated, j.probe = r.Bool(), r.Bool()
		if r.Err() == nil && (j.node < 0 || int(j.node) >= s.cfg.Nodes) {
			fail("job %d: node %d", i, j.node)
		}
	}
	s.freeJob = readI32s(r, len(s.jobs))
	st := r.Bytes()
	if r.Err() != nil {
		return
	}
	if err := json.Unmarshal(st, &s.st); err != nil {
		fail("results: %v", err)
	}
	s.allocSum, s.allocMax, s.probeSum, s.makespanSum, s.rowMakespan = r.F64(), r.F64(), r.F64(), r.F64(), r.F64()
	s.lastJob = int32(r.Int())
	if has := r.Bool(); r.Err() == nil && has != (s.randSrc != nil) {
		fail("random reference generator present: %v, want %v", has, s.randSrc != nil)
	}
	if s.randSrc != nil {
		b := r.Bytes()
		if r.Err() == nil {
			if err := s.randSrc.UnmarshalBinary(b); err != nil {
				fail("random reference generator: %v", err)
			}
		}
	}
}

// rebuildDerived recomputes, after a restore, state derived from what was
// loaded: the centralized reference's index of the leaves' states (IBP; an
// IBP node's summary depends only on whether it is busy, not on the time,
// so the index rebuilt from the restored leaves is the one the run had).
func (s *Sim) rebuildDerived() {
	s.rebuildIndex(s.eng.Now())
	clear(s.sumCache) // summaries of the nodes before the restore
}
