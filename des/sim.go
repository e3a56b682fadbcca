package des

import "fmt"

// Sim is a simulation loop over events of type E: a clock and a queue.
// Handlers schedule further events with At or After while the loop runs.
type Sim[E any] struct {
	q         Queue[E]
	now       Time
	processed uint64
}

// Now is the current simulated time: the time of the event being handled,
// or of the last one handled.
func (s *Sim[E]) Now() Time { return s.now }

// Processed is the number of events handled so far.
func (s *Sim[E]) Processed() uint64 { return s.processed }

// Pending is the number of events scheduled and not yet handled.
func (s *Sim[E]) Pending() int { return s.q.Len() }

// Grow reserves room for n more pending events.
func (s *Sim[E]) Grow(n int) { s.q.Grow(n) }

// At schedules ev at time t. Scheduling in the past is a bug of the
// caller's model and panics: it would break causality silently otherwise.
func (s *Sim[E]) At(t Time, ev E) {
	if t < s.now {
		panic(fmt.Sprintf("des: event scheduled at %v, before the current time %v", t, s.now))
	}
	s.q.Push(t, ev)
}

// After schedules ev d after the current time (d >= 0).
func (s *Sim[E]) After(d Time, ev E) { s.At(s.now+d, ev) }

// NextTime is the time of the next pending event, or Never.
func (s *Sim[E]) NextTime() Time { return s.q.Peek() }

// Step handles the next event if it is at or before until. It returns false
// when no such event exists (the clock is then left unchanged).
func (s *Sim[E]) Step(until Time, handle func(t Time, ev E)) bool {
	if s.q.Len() == 0 || s.q.Peek() > until {
		return false
	}
	t, ev, _ := s.q.Pop()
	s.now = t
	s.processed++
	handle(t, ev)
	return true
}

// Run handles events in time order until none is left at or before until,
// then sets the clock to until (if it is not Never) and returns the number
// of events handled by this call.
func (s *Sim[E]) Run(until Time, handle func(t Time, ev E)) uint64 {
	start := s.processed
	for s.q.Len() > 0 && s.q.Peek() <= until {
		t, ev, _ := s.q.Pop()
		s.now = t
		s.processed++
		handle(t, ev)
	}
	if until != Never && until > s.now {
		s.now = until
	}
	return s.processed - start
}

// Snapshot returns the clock, the number of events handled and the queue,
// for a checkpoint (the queue is the Sim's own: list it with Each before
// handling further events).
func (s *Sim[E]) Snapshot() (now Time, processed uint64, q *Queue[E]) {
	return s.now, s.processed, &s.q
}

// Restore sets the clock and the count of events handled, and returns the
// queue to refill (Queue.Restore, Queue.Append) from a checkpoint.
func (s *Sim[E]) Restore(now Time, processed uint64) *Queue[E] {
	s.now, s.processed = now, processed
	return &s.q
}
