package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Campaign is one campaign as a command runs it: Kind and Units of the
// manifest, Params, the kind-specific parameters that determine the results
// (any JSON-encodable value; compared on resume and merge; checked with
// ValidateParams), and Work, the computation of one unit.
type Campaign[R any] struct {
	Kind   string
	Units  int
	Params any
	Work   func(ctx context.Context, unit int) (R, error)
}

// Validate checks the parameters (ValidateParams) and the number of units
// (0 to MaxUnits). Its errors are about what the caller asked for.
func (c Campaign[R]) Validate() error {
	if err := ValidateParams(c.Params); err != nil {
		return err
	}
	if c.Units > MaxUnits || c.Units < 0 {
		return fmt.Errorf("campaign %s: %d units, want at most %d (fewer scenarios or a smaller grid)", c.Kind, c.Units, MaxUnits)
	}
	return nil
}

// Manifest is the manifest of shard of c run with seed (its parameters in
// canonical JSON). Call Validate first.
func (c Campaign[R]) Manifest(seed uint64, shard Shard) (Manifest, error) {
	params, err := CanonicalJSON(c.Params)
	if err != nil {
		return Manifest{}, fmt.Errorf("campaign %s parameters: %w", c.Kind, err)
	}
	return Manifest{Kind: c.Kind, Seed: seed, Units: c.Units, Params: params, Shard: shard}, nil
}

// Run runs the units of m (a manifest of c) in dir with Run: resuming what
// is there, workers goroutines, progress labelled with the kind and shard
// (NewProgress) when p is nil.
func (c Campaign[R]) Run(ctx context.Context, dir string, m Manifest, workers int, p *Progress) error {
	if p == nil {
		p = NewProgress(c.Kind + " " + m.Shard.String())
	}
	return Run(ctx, dir, m, workers, c.Work, p)
}

// SummaryFile is the file every summarizer writes into a whole campaign's
// directory: ReadStatus calls a whole campaign complete only when it is
// there.
const SummaryFile = "summary.json"

// Summarizer computes and writes the summary of a complete campaign
// directory of its kind (SummaryFile, CSV, SVG files in dir; the
// human-readable tables to w).
type Summarizer func(ctx context.Context, dir string, w io.Writer) error

// Summarizers are the summarizers of the campaign kinds a program knows,
// by kind.
type Summarizers map[string]Summarizer

// Register adds the summarizer of kind. A kind registered twice is a
// programming error: Register panics (call it from init functions).
func (s Summarizers) Register(kind string, fn Summarizer) {
	if _, dup := s[kind]; dup {
		panic(fmt.Sprintf("experiment: summarizer of kind %q registered twice", kind))
	}
	s[kind] = fn
}

// Summarize runs the summarizer of kind on dir; an unknown kind is an
// error naming the known kinds.
func (s Summarizers) Summarize(ctx context.Context, kind, dir string, w io.Writer) error {
	fn, ok := s[kind]
	if !ok {
		return s.unknown(kind)
	}
	if err := fn(ctx, dir, w); err != nil {
		return fmt.Errorf("summary of %s: %w", dir, err)
	}
	return nil
}

func (s Summarizers) unknown(kind string) error {
	kinds := make([]string, 0, len(s))
	for k := range s {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return fmt.Errorf("no summary for campaigns of kind %q (known kinds: %s)", kind, strings.Join(kinds, ", "))
}

// Merge merges the shard directories dirs into out (MergeSummarized) and
// summarizes the merged campaign with the summarizer of its kind. It
// returns the human-readable tables of the summary, to be shown only now
// that it succeeded; when the summary fails, merge leaves nothing behind.
func (s Summarizers) Merge(ctx context.Context, out string, dirs []string) (Manifest, []byte, error) {
	var tables strings.Builder
	m, err := MergeSummarized(out, dirs, func(m Manifest, dir string) error {
		fn, ok := s[m.Kind]
		if !ok {
			return s.unknown(m.Kind)
		}
		return fn(ctx, dir, &tables)
	})
	if err != nil {
		return m, nil, err
	}
	return m, []byte(tables.String()), nil
}

// The states of a campaign directory (Status.State).
const (
	// StateIncomplete: units of the shard are missing.
	StateIncomplete = "incomplete"
	// StateComplete: every unit is done and, for a whole campaign, its
	// SummaryFile was written.
	StateComplete = "complete"
	// StateNoSummary: every unit of a whole campaign is done but its
	// summary was not written.
	StateNoSummary = "no summary"
)

// Status is how far a campaign directory is.
type Status struct {
	Manifest Manifest
	Done     int    // units of the shard with a result
	Units    int    // units of the shard
	State    string // StateIncomplete, StateComplete or StateNoSummary
}

// ReadStatus reads how far the campaign in dir is. It only reads, so it
// can watch a running campaign.
func ReadStatus(dir string) (Status, error) {
	m, _, present, err := Load[json.RawMessage](dir)
	if err != nil {
		return Status{}, err
	}
	units := m.Shard.Units(m.Units)
	done := 0
	for _, u := range units {
		if present[u] {
			done++
		}
	}
	st := Status{Manifest: m, Done: done, Units: len(units), State: StateComplete}
	switch {
	case done < len(units):
		st.State = StateIncomplete
	case m.Shard == Whole:
		if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
			st.State = StateNoSummary
		}
	}
	return st, nil
}
