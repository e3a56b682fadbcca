package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type campaignTestParams struct{ Trials int }

func (p campaignTestParams) Validate() error {
	if p.Trials < 1 {
		return fmt.Errorf("trials = %d, want ≥ 1", p.Trials)
	}
	return nil
}

func TestCampaignValidateAndManifest(t *testing.T) {
	c := Campaign[testResult]{Kind: "test", Units: 5, Params: campaignTestParams{Trials: 0}, Work: testWork}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "trials = 0") {
		t.Errorf("bad params: %v, want the params' own error", err)
	}
	c.Params = campaignTestParams{Trials: 3}
	for _, units := range []int{-1, MaxUnits + 1} {
		c.Units = units
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d units", units)) {
			t.Errorf("%d units: %v", units, err)
		}
	}
	c.Units = 5
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := c.Manifest(7, Shard{Index: 2, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "test" || m.Seed != 7 || m.Units != 5 || m.Shard.String() != "2/3" || string(m.Params) != `{"Trials":3}` {
		t.Errorf("manifest %+v (params %s)", m, m.Params)
	}
	c.Params = map[string]any{"f": func() {}}
	if _, err := c.Manifest(7, Whole); err == nil || !strings.Contains(err.Error(), "campaign test parameters") {
		t.Errorf("parameters that are not JSON: %v", err)
	}
}

// TestStatusAndSummarizers runs a campaign in two shards, reads their
// states, merges them with a summarizer and reads the merged state before
// and after its summary exists.
func TestStatusAndSummarizers(t *testing.T) {
	c := Campaign[testResult]{Kind: "test", Units: 6, Params: campaignTestParams{Trials: 1}, Work: testWork}
	base := t.TempDir()
	s1, s2, whole := filepath.Join(base, "s1"), filepath.Join(base, "s2"), filepath.Join(base, "whole")
	for i, dir := range []string{s1, s2} {
		m, err := c.Manifest(testSeed, Shard{Index: i + 1, Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Run(context.Background(), dir, m, 2, nil); err != nil {
			t.Fatal(err)
		}
		st, err := ReadStatus(dir)
		if err != nil {
			t.Fatal(err)
		}
		if st.Done != 3 || st.Units != 3 || st.State != StateComplete {
			t.Errorf("shard %d: %+v, want 3 of 3 done and complete", i+1, st)
		}
	}

	sums := Summarizers{}
	failing := true
	sums.Register("test", func(ctx context.Context, dir string, w io.Writer) error {
		if failing {
			return errors.New("no summary today")
		}
		_, rs, err := LoadComplete[testResult](dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%d results\n", len(rs))
		return os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{}\n"), 0o644)
	})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a kind registered twice did not panic")
			}
		}()
		sums.Register("test", nil)
	}()
	if err := sums.Summarize(context.Background(), "other", s1, io.Discard); err == nil || !strings.Contains(err.Error(), `kind "other" (known kinds: test)`) {
		t.Errorf("unknown kind: %v", err)
	}

	if _, _, err := sums.Merge(context.Background(), whole, []string{s1, s2}); err == nil || !strings.Contains(err.Error(), "no summary today") {
		t.Fatalf("merge with a failing summary: %v", err)
	}
	if _, err := os.Stat(whole); err == nil {
		entries, _ := os.ReadDir(whole)
		if len(entries) > 0 {
			t.Errorf("a failed merge left %d files in %s", len(entries), whole)
		}
	}
	failing = false
	m, tables, err := sums.Merge(context.Background(), whole, []string{s1, s2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Shard != Whole || string(tables) != "6 results\n" {
		t.Errorf("merged %+v, tables %q", m, tables)
	}
	st, err := ReadStatus(whole)
	if err != nil || st.State != StateComplete || st.Done != 6 {
		t.Errorf("merged status %+v, %v", st, err)
	}
	if err := os.Remove(filepath.Join(whole, SummaryFile)); err != nil {
		t.Fatal(err)
	}
	if st, _ := ReadStatus(whole); st.State != StateNoSummary {
		t.Errorf("without its summary: state %q, want %q", st.State, StateNoSummary)
	}
	if err := sums.Summarize(context.Background(), "test", whole, io.Discard); err != nil {
		t.Fatal(err)
	}
	if st, _ := ReadStatus(whole); st.State != StateComplete {
		t.Errorf("after Summarize: state %q", st.State)
	}
	if _, err := ReadStatus(filepath.Join(base, "none")); err == nil {
		t.Error("ReadStatus of a missing directory did not fail")
	}
}

func TestStatusIncomplete(t *testing.T) {
	dir := t.TempDir()
	m := testManifest(10, Whole)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Run(ctx, dir, m, 1, func(ctx context.Context, u int) (testResult, error) {
		if n++; n == 4 {
			cancel()
		}
		return testWork(ctx, u)
	}, nil)
	if err == nil {
		t.Fatal("a cancelled run returned no error")
	}
	st, err := ReadStatus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateIncomplete || st.Done < 1 || st.Done >= 10 || st.Units != 10 {
		t.Errorf("interrupted run: %+v", st)
	}
}
