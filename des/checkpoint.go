package des

import "github.com/volsched/volsched/internal/ckpt"

// SaveState writes the network's dynamic state for a checkpoint: every
// node's link and processor schedule, its traffic totals and windows, and
// the peaks and counters. The link, the processing model, the seed (the
// pair delays are a hash of it) and the windows come from the
// configuration: LoadState reads over a Network built by NewNetwork with
// the same arguments.
func (nw *Network) SaveState(w *ckpt.Writer) {
	w.Uvarint(uint64(nw.n))
	w.Uvarint(uint64(len(nw.windows)))
	for i := 0; i < nw.n; i++ {
		w.Varint(int64(nw.free[i]))
		w.Varint(int64(nw.cpu[i]))
		w.Uvarint(nw.total[2*i])
		w.Uvarint(nw.total[2*i+1])
		for _, u := range nw.use {
			w.Varint(int64(u[i].idx))
			w.Uvarint(uint64(u[i].out))
			w.Uvarint(uint64(u[i].in))
		}
	}
	for k := range nw.windows {
		w.Uvarint(nw.maxUse[k])
		w.Varint(int64(nw.maxNode[k]))
	}
	w.Uvarint(nw.sent)
	w.Uvarint(nw.bytes)
}

// LoadState reads what SaveState wrote.
func (nw *Network) LoadState(r *ckpt.Reader) {
	if n, k := r.Uvarint(), r.Uvarint(); r.Err() == nil && (n != uint64(nw.n) || k != uint64(len(nw.windows))) {
		r.Failf("network of %d nodes and %d windows, want %d and %d", n, k, nw.n, len(nw.windows))
	}
	u32 := func() uint32 {
		x := r.Uvarint()
		if x > 1<<32-1 {
			r.Failf("window use %d out of range", x)
		}
		return uint32(x)
	}
	for i := 0; i < nw.n && r.Err() == nil; i++ {
		nw.free[i], nw.cpu[i] = Time(r.Varint()), Time(r.Varint())
		nw.total[2*i], nw.total[2*i+1] = r.Uvarint(), r.Uvarint()
		for _, u := range nw.use {
			u[i].idx = int32(r.Int())
			u[i].out, u[i].in = u32(), u32()
		}
	}
	for k := range nw.windows {
		nw.maxUse[k] = r.Uvarint()
		nw.maxNode[k] = int32(r.Int())
	}
	nw.sent, nw.bytes = r.Uvarint(), r.Uvarint()
}
