package experiment

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// LogInterval is how often a Progress writing to a log (standard error
// not a terminal: Slurm, nohup, CI) prints a line.
const LogInterval = 30 * time.Second

// Progress reports a long computation's progress (done/total, rate, ETA).
// On a terminal it redraws one line at most every 200 ms; in a log it
// prints a line every LogInterval (none for a run shorter than that, and
// a last one when a run that printed some ends). A nil *Progress does
// nothing. It is safe for concurrent use.
//
// The ETA is the remaining work divided by the rate of the work completed
// in this run (not by the pace of the first units): work is counted in
// units, or, when the caller knows that units differ in cost, in the
// weights it gives (StartWork, AddWork).
type Progress struct {
	mu        sync.Mutex
	w         io.Writer
	label     string
	log       bool // a log, not a terminal: whole lines at LogInterval
	interval  time.Duration
	total     int
	done      int
	totalWork float64
	doneWork  float64
	startWork float64 // doneWork when Start was called: the rate counts this run only
	startDone int
	start     time.Time
	last      time.Time
	drawn     bool
	now       func() time.Time
}

// NewProgress returns a Progress writing to standard error: a redrawn line
// on a terminal, a line every LogInterval otherwise. label prefixes the
// line.
func NewProgress(label string) *Progress {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return NewProgressLog(os.Stderr, label)
	}
	return NewProgressWriter(os.Stderr, label)
}

// NewProgressWriter returns a Progress that redraws its line on w (a
// terminal).
func NewProgressWriter(w io.Writer, label string) *Progress {
	return &Progress{w: w, label: label, now: time.Now, interval: 200 * time.Millisecond}
}

// NewProgressLog returns a Progress that prints a whole line on w every
// LogInterval (a log file).
func NewProgressLog(w io.Writer, label string) *Progress {
	return &Progress{w: w, label: label, log: true, now: time.Now, interval: LogInterval}
}

// Start sets the total number of units and how many are already done (by
// earlier runs), each unit counting as one unit of work, and draws the
// line.
func (p *Progress) Start(total, done int) {
	p.StartWork(total, done, float64(total), float64(done))
}

// StartWork is Start with the work of the units known: totalWork in all,
// doneWork of it already done.
func (p *Progress) StartWork(total, done int, totalWork, doneWork float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done, p.totalWork, p.doneWork = total, done, totalWork, doneWork
	p.startDone, p.startWork = done, doneWork
	p.start = p.now()
	p.last = p.start
	if !p.log {
		p.draw(true)
	}
}

// Add records n more finished units of one unit of work each.
func (p *Progress) Add(n int) { p.AddWork(n, float64(n)) }

// AddWork records n more finished units carrying work in all.
func (p *Progress) AddWork(n int, work float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.doneWork += work
	p.draw(false)
}

// Finish draws the final state and ends the line (in a log: prints a last
// line if any was printed).
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
	if !p.log {
		fmt.Fprintln(p.w)
	}
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
	if p.total == 0 { // an unknown total
		s = fmt.Sprint(p.done)
	}
	if p.label != "" {
		s = p.label + ": " + s
	}
	if p.totalWork > 0 {
		s += fmt.Sprintf(" (%.1f%%)", 100*p.doneWork/p.totalWork)
	}
	el := now.Sub(p.start).Seconds()
	if n, w := p.done-p.startDone, p.doneWork-p.startWork; w > 0 && el > 0 {
		if n > 0 {
			s += fmt.Sprintf(" %.3g units/s", float64(n)/el)
		}
		// The ETA comes from the rate of the work done in this run.
		if rest := p.totalWork - p.doneWork; rest > 0 {
			s += fmt.Sprintf(", ETA %s", time.Duration(rest/(w/el)*float64(time.Second)).Round(time.Second))
		}
	}
	return s
}

func (p *Progress) draw(force bool) {
	now := p.now()
	if !force && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	p.drawn = true
	if p.log {
		fmt.Fprintf(p.w, "%s [%s elapsed]\n", p.line(now), now.Sub(p.start).Round(time.Second))
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s", p.line(now))
}
