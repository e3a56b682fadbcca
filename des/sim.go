package des

import (
	"errors"
	"fmt"
)

// Sim is a simulation loop over events of type E: a clock and a queue.
// Handlers schedule further events with At or After while the loop runs.
//
// Sim guarantees progress: an event at Never is never handled (At drops
// it: its time is not representable), After saturates instead of wrapping
// around into the past, and handling more than the stall limit of
// consecutive events at one instant stops the loop with ErrStalled (see
// Err): a model whose time cannot advance gets an error, not a loop that
// never ends.
type Sim[E any] struct {
	q         Queue[E]
	now       Time
	processed uint64
	// same counts the consecutive events handled at now; stallLimit bounds
	// it (0: DefaultStallLimit).
	same       uint64
	stallLimit uint64
	err        error
}

// DefaultStallLimit is the number of consecutive events at one instant
// after which a Sim stops with ErrStalled unless SetStallLimit says
// otherwise: far more than any model of volsched handles at one instant
// (every node of the largest network submitting at once, several times),
// reached in minutes by a model stuck in a loop.
const DefaultStallLimit = 1 << 32

// ErrStalled is wrapped by Err when the clock could not advance: more
// consecutive events than the stall limit at one instant.
var ErrStalled = errors.New("des: simulated time does not advance")

// SetStallLimit sets the number of consecutive events at one instant
// after which the loop stops with ErrStalled (0: DefaultStallLimit).
func (s *Sim[E]) SetStallLimit(n uint64) { s.stallLimit = n }

// Err is the reason the loop stopped handling events, or nil: a wrapped
// ErrStalled. Step and Run return at once while it is set.
func (s *Sim[E]) Err() error { return s.err }

// pop takes the next event and advances the clock, or sets err (and
// leaves the event queued) when too many events came at one instant.
func (s *Sim[E]) pop() (Time, E, bool) {
	var zero E
	if s.err != nil {
		return 0, zero, false
	}
	if t := s.q.Peek(); t == s.now && s.processed > 0 {
		limit := s.stallLimit
		if limit == 0 {
			limit = DefaultStallLimit
		}
		if s.same+1 >= limit {
			s.err = fmt.Errorf("%w: %d consecutive events at %v (after %d events in all)", ErrStalled, s.same+1, t, s.processed)
			return 0, zero, false
		}
		s.same++
	} else {
		s.same = 0
	}
	t, ev, _ := s.q.Pop()
	s.now = t
	s.processed++
	return t, ev, true
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
// An event at Never (a time beyond the representable range, e.g. from a
// saturated conversion) never happens: it is dropped.
func (s *Sim[E]) At(t Time, ev E) {
	if t < s.now {
		panic(fmt.Sprintf("des: event scheduled at %v, before the current time %v", t, s.now))
	}
	if t == Never {
		return
	}
	s.q.Push(t, ev)
}

// After schedules ev d after the current time (d >= 0), saturating at
// Never (then the event never happens).
func (s *Sim[E]) After(d Time, ev E) { s.At(Add(s.now, d), ev) }

// NextTime is the time of the next pending event, or Never.
func (s *Sim[E]) NextTime() Time { return s.q.Peek() }

// Step handles the next event if it is at or before until. It returns false
// when no such event exists (the clock is then left unchanged) or when the
// loop stalled (Err).
func (s *Sim[E]) Step(until Time, handle func(t Time, ev E)) bool {
	if s.q.Len() == 0 || s.q.Peek() > until {
		return false
	}
	t, ev, ok := s.pop()
	if !ok {
		return false
	}
	handle(t, ev)
	return true
}

// Run handles events in time order until none is left at or before until,
// then sets the clock to until (if it is not Never) and returns the number
// of events handled by this call. It stops early when the loop stalls
// (Err).
func (s *Sim[E]) Run(until Time, handle func(t Time, ev E)) uint64 {
	start := s.processed
	for s.q.Len() > 0 && s.q.Peek() <= until {
		t, ev, ok := s.pop()
		if !ok {
			return s.processed - start
		}
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
