package experiment

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Progress reports a campaign's progress (done/total, rate, ETA) on one
// line of a terminal, redrawn at most every 200 ms. A nil *Progress, and
// one made by NewProgress when standard error is not a terminal, does
// nothing, so batch jobs' logs stay clean. It is safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	total   int
	done    int
	startAt int // done when Start was called: the rate counts this run only
	start   time.Time
	last    time.Time
	drawn   bool
	now     func() time.Time
}

// NewProgress returns a Progress writing to standard error if it is a
// terminal, and nil (silent) otherwise. label prefixes the line.
func NewProgress(label string) *Progress {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return NewProgressWriter(os.Stderr, label)
}

// NewProgressWriter returns a Progress that always writes to w.
func NewProgressWriter(w io.Writer, label string) *Progress {
	return &Progress{w: w, label: label, now: time.Now}
}

// Start sets the total number of units and how many are already done (by
// earlier runs) and draws the line.
func (p *Progress) Start(total, done int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done, p.startAt = total, done, done
	p.start = p.now()
	p.draw(true)
}

// Add records n more finished units.
func (p *Progress) Add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.draw(false)
}

// Finish draws the final state and ends the line.
func (p *Progress) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.drawn {
		return
	}
	p.draw(true)
	fmt.Fprintln(p.w)
	p.drawn = false
}

// Line returns the text of the progress line, e.g.
// "independent: 120/2964 (4.0%) 3.1 units/s, ETA 15m17s".
func (p *Progress) Line() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.line(p.now())
}

func (p *Progress) line(now time.Time) string {
	s := fmt.Sprintf("%d/%d", p.done, p.total)
	if p.label != "" {
		s = p.label + ": " + s
	}
	if p.total > 0 {
		s += fmt.Sprintf(" (%.1f%%)", 100*float64(p.done)/float64(p.total))
	}
	el := now.Sub(p.start).Seconds()
	n := p.done - p.startAt
	if n > 0 && el > 0 {
		rate := float64(n) / el
		s += fmt.Sprintf(" %.3g units/s", rate)
		if rest := p.total - p.done; rest > 0 {
			s += fmt.Sprintf(", ETA %s", time.Duration(float64(rest)/rate*float64(time.Second)).Round(time.Second))
		}
	}
	return s
}

func (p *Progress) draw(force bool) {
	now := p.now()
	if !force && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	p.drawn = true
	fmt.Fprintf(p.w, "\r\033[K%s", p.line(now))
}
