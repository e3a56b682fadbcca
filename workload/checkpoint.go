package workload

import (
	"github.com/volsched/volsched/des"
	"github.com/volsched/volsched/internal/ckpt"
)

// SaveState writes what a user's generation changed since NewUser: its
// random stream's state, its clock, its batch and its perceived platform
// speed. What NewUser derives from the seed (working hours, weekday
// worker) is rebuilt by NewUser before LoadState.
func (u *User) SaveState(w *ckpt.Writer) {
	b, err := u.src.MarshalBinary()
	if err != nil {
		w.Fail(err)
		return
	}
	w.Bytes(b)
	w.Varint(int64(u.t))
	w.Int(u.batchLeft)
	w.Int(u.repeatLeft)
	WriteJob(w, &u.tmpl)
	w.Varint(int64(u.batchStart))
	w.Varint(int64(u.batchEnd))
	w.F64(u.splat)
	w.Uvarint(u.seq)
}

// LoadState reads what SaveState wrote over the user NewUser built with
// the run's parameters.
func (u *User) LoadState(r *ckpt.Reader) {
	b := r.Bytes()
	if r.Err() != nil {
		return
	}
	if err := u.src.UnmarshalBinary(b); err != nil {
		r.Failf("user %d's random state: %v", u.node, err)
		return
	}
	u.t = des.Time(r.Varint())
	u.batchLeft, u.repeatLeft = r.Int(), r.Int()
	u.tmpl = ReadJob(r)
	u.batchStart, u.batchEnd = des.Time(r.Varint()), des.Time(r.Varint())
	u.splat = r.F64()
	u.seq = r.Uvarint()
}

// WriteJob writes a job.
func WriteJob(w *ckpt.Writer, j *Job) {
	w.Varint(int64(j.Submit))
	w.Varint(int64(j.Node))
	w.Varint(int64(j.Tasks))
	w.Uvarint(j.ID)
	w.F64(j.LengthMI)
	w.F32(j.MemMB)
	w.F32(j.DiskMB)
	w.Varint(int64(j.Deadline))
}

// ReadJob reads what WriteJob wrote.
func ReadJob(r *ckpt.Reader) Job {
	return Job{Submit: des.Time(r.Varint()), Node: int32(r.Int()), Tasks: int32(r.Int()), ID: r.Uvarint(),
		LengthMI: r.F64(), MemMB: r.F32(), DiskMB: r.F32(), Deadline: des.Time(r.Varint())}
}
