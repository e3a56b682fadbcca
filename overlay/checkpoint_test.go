package overlay

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/volsched/volsched/internal/ckpt"
	"pgregory.net/rapid"
)

// saveLoad writes what save writes into a checkpoint and reads it back
// with load.
func saveLoad(t interface{ Fatalf(string, ...any) }, save func(w *ckpt.Writer), load func(r *ckpt.Reader)) {
	var buf bytes.Buffer
	w := ckpt.NewWriter(&buf)
	save(w)
	if _, err := w.Finish(); err != nil {
		t.Fatalf("save: %v", err)
	}
	r := ckpt.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	load(r)
	if err := r.End(); err != nil {
		t.Fatalf("load: %v", err)
	}
}

// TestCheckpointSummaries: the summaries a random tree aggregates (plain
// and with spreads) come back from a checkpoint as they were, each
// written once however often it is referred to, and the l samples DP
// summaries share stay shared.
func TestCheckpointSummaries(t *testing.T) {
	for _, pol := range builtins {
		t.Run(pol.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p, _ := newRules(pol, rapid.IntRange(1, 8).Draw(t, "sfmax"))
				_, leaves := drawNodes(t, pol)
				all := append([]Summary(nil), leaves...)
				randomTreeAggregate(t, p, leaves, func(_, _ int, s Summary) { all = append(all, s) })
				refs := append(append([]Summary(nil), all...), all...) // each twice
				var got []Summary
				enc := NewSummaryEncoder()
				saveLoad(t, func(w *ckpt.Writer) {
					for _, s := range refs {
						enc.Write(w, s)
					}
				}, func(r *ckpt.Reader) {
					var dec SummaryDecoder
					for range refs {
						got = append(got, dec.Read(r))
					}
				})
				if enc.Distinct() > uint64(len(all)) {
					t.Fatalf("%d summaries written for %d distinct ones", enc.Distinct(), len(all))
				}
				for i, s := range all {
					a, b := got[i], got[i+len(all)]
					if !p.Equal(a, s) || !reflect.DeepEqual(Plain(a), Plain(s)) || reflect.TypeOf(a) != reflect.TypeOf(s) {
						t.Fatalf("summary %d: %#v came back as %#v", i, s, a)
					}
					if s != nil && summaryStorage(a) != summaryStorage(b) {
						t.Fatalf("summary %d: written twice, restored as two copies", i)
					}
				}
				// Samples shared before are shared after: as many distinct
				// sample arrays in the restored summaries as in the saved.
				if pol == PolicyDP && distinctSamples(got) != distinctSamples(all) {
					t.Fatalf("%d distinct l sample arrays restored, %d saved", distinctSamples(got), distinctSamples(all))
				}
			})
		})
	}
}

func summaryStorage(s Summary) unsafe.Pointer {
	k, _ := summaryKey(s)
	return k.p
}

func distinctSamples(ss []Summary) int {
	seen := map[*LPoint]bool{}
	for _, s := range ss {
		for _, c := range asDP(s) {
			if len(c.L.P) > 0 {
				seen[&c.L.P[0]] = true
			}
		}
	}
	return len(seen)
}

// TestCheckpointExecs: an execution node of each policy saved in the
// middle of its work and restored over a fresh one with the same hardware
// is the same node, and goes on the same way.
func TestCheckpointExecs(t *testing.T) {
	hw := Hardware{Mem: 2048, Disk: 4096, Power: 1000}
	for _, pol := range builtins {
		o := DefaultOptions(pol)
		e := pol.NewExec(hw, o)
		var done []Request
		for i, at := range []float64{0, 1, 2, 30} {
			done = e.Advance(at, done)
			e.Accept(at, App{ID: uint64(i + 1), Length: 4000 * float64(i+1), Deadline: 500 - 50*float64(i)}, 3, Addr(i))
		}
		l, _ := NewLeaf(4, 2, e)
		fresh, _ := NewLeaf(4, 2, pol.NewExec(hw, o))
		saveLoad(t, func(w *ckpt.Writer) { l.SaveState(w, NewSummaryEncoder()) },
			func(r *ckpt.Reader) { fresh.LoadState(r, &SummaryDecoder{}) })
		if !reflect.DeepEqual(fresh.Exec, l.Exec) {
			t.Fatalf("%s: %+v restored as %+v", pol, l.Exec, fresh.Exec)
		}
		a, b := l.Exec.Advance(1e6, nil), fresh.Exec.Advance(1e6, nil)
		if len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: after the restore %v finished, want %v", pol, b, a)
		}
	}
}

// TestCheckpointRefusesUnsaved: a summary without a wire form and an
// executor that is not a SavedExec cannot be saved; the error says why.
func TestCheckpointRefusesUnsaved(t *testing.T) {
	for _, c := range []struct {
		save func(w *ckpt.Writer)
		want string
	}{
		{func(w *ckpt.Writer) { NewSummaryEncoder().Write(w, otherSummary{}) }, "a summary of type overlay.otherSummary cannot be saved"},
		{func(w *ckpt.Writer) {
			l, _ := NewLeaf(1, 0, &unsavedExec{})
			l.SaveState(w, NewSummaryEncoder())
		}, "not an overlay.SavedExec"},
	} {
		var buf bytes.Buffer
		w := ckpt.NewWriter(&buf)
		c.save(w)
		if _, err := w.Finish(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error with %q", err, c.want)
		}
	}
}

type otherSummary struct{}

func (otherSummary) Nodes() int { return 1 }
func (otherSummary) Len() int   { return 1 }
func (otherSummary) Bytes() int { return 1 }

type unsavedExec struct{ IBPExec }

// AppendState hides IBPExec's: this executor is not a SavedExec.
func (*unsavedExec) AppendState() {}
