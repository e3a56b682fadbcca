package des

// Queue is a priority queue of events of type E ordered by time, ties
// broken by insertion order (first scheduled, first delivered), which makes
// runs deterministic. It is a 4-ary heap stored as a slice of values: no
// allocation per event once the slice has grown, no interface boxing. Each
// pending event costs 16 bytes plus the size of E (rounded up to 8).
//
// The zero Queue is empty and ready to use.
type Queue[E any] struct {
	items []entry[E]
	seq   uint64
}

type entry[E any] struct {
	at  Time
	seq uint64
	ev  E
}

func (a *entry[E]) before(b *entry[E]) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// Len is the number of pending events.
func (q *Queue[E]) Len() int { return len(q.items) }

// Grow makes room for n more events without reallocation.
func (q *Queue[E]) Grow(n int) {
	if cap(q.items)-len(q.items) < n {
		s := make([]entry[E], len(q.items), len(q.items)+n)
		copy(s, q.items)
		q.items = s
	}
}

// Push schedules ev at time at.
func (q *Queue[E]) Push(at Time, ev E) {
	e := entry[E]{at: at, seq: q.seq, ev: ev}
	q.seq++
	q.items = append(q.items, e)
	// Sift up with a hole.
	items := q.items
	i := len(items) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(&items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = e
}

// Peek returns the time of the earliest event, or Never if the queue is
// empty.
func (q *Queue[E]) Peek() Time {
	if len(q.items) == 0 {
		return Never
	}
	return q.items[0].at
}

// Pop removes and returns the earliest event. ok is false if the queue is
// empty.
func (q *Queue[E]) Pop() (at Time, ev E, ok bool) {
	n := len(q.items)
	if n == 0 {
		return Never, ev, false
	}
	items := q.items
	top := items[0]
	last := items[n-1]
	var zero entry[E]
	items[n-1] = zero // release references held by E, if any
	items = items[:n-1]
	q.items = items
	n--
	if n > 0 {
		// Sift the last element down from the root with a hole.
		i := 0
		for {
			c := 4*i + 1
			if c >= n {
				break
			}
			m := c
			end := c + 4
			if end > n {
				end = n
			}
			for j := c + 1; j < end; j++ {
				if items[j].before(&items[m]) {
					m = j
				}
			}
			if !items[m].before(&last) {
				break
			}
			items[i] = items[m]
			i = m
		}
		items[i] = last
	}
	return top.at, top.ev, true
}

// Each calls f with every pending event in the queue's storage order (for
// a checkpoint; Restore rebuilds the same queue from that order) and
// returns the next sequence number.
func (q *Queue[E]) Each(f func(at Time, seq uint64, ev E)) uint64 {
	for i := range q.items {
		f(q.items[i].at, q.items[i].seq, q.items[i].ev)
	}
	return q.seq
}

// Restore empties the queue and sets its next sequence number; Append then
// adds the events Each listed, in that order.
func (q *Queue[E]) Restore(seq uint64, n int) {
	clear(q.items)
	q.items = q.items[:0]
	q.Grow(n)
	q.seq = seq
}

// Append adds an event in storage order (after Restore); check the result
// with Valid.
func (q *Queue[E]) Append(at Time, seq uint64, ev E) {
	q.items = append(q.items, entry[E]{at: at, seq: seq, ev: ev})
}

// Valid reports whether the queue is a well-formed heap (every event after
// its parent, sequence numbers below the next one): a restored queue is
// checked with it.
func (q *Queue[E]) Valid() bool {
	for i := range q.items {
		if q.items[i].seq >= q.seq {
			return false
		}
		if i > 0 && q.items[i].before(&q.items[(i-1)>>2]) {
			return false
		}
	}
	return true
}
