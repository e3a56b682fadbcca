package iterative

import (
	"slices"
	"strings"
	"testing"

	"github.com/volsched/volsched/stream"
)

// TestSnapshotValidate: a hand-built snapshot that breaks the model is
// refused with the processor or task (index and ID) and the field.
func TestSnapshotValidate(t *testing.T) {
	good := func() *Snapshot {
		s := snapshot([]int{2, 3}, []int{0, 4}, nil, 1, 2, 2)
		s.Procs[0].ID, s.Procs[1].ID = 11, 12
		s.Procs[0].HasCur, s.Procs[0].Cur = true, Work{DataLeft: 1, WorkLeft: 2}
		return s
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid snapshot refused: %v", err)
	}
	cases := []struct {
		f    func(s *Snapshot)
		want string
	}{
		{func(s *Snapshot) { s.Crit = s.Crit[:1] }, "1 criteria for 2 processors"},
		{func(s *Snapshot) { s.Procs[1].State = 3 }, "processor 1 (ID 12): state 3"},
		{func(s *Snapshot) { s.Procs[0].W = 0 }, "processor 0 (ID 11): W = 0"},
		{func(s *Snapshot) { s.Procs[1].ProgramLeft = -1 }, "ProgramLeft = -1"},
		{func(s *Snapshot) { s.Procs[1].HasNext = true }, "processor 1 (ID 12): a next copy without a current one"},
		{func(s *Snapshot) { s.Procs[1].HasCur = true }, "processor 1 (ID 12): a begun copy while 4 slots of program"},
		{func(s *Snapshot) { s.Procs[0].Cur.WorkLeft = -2 }, "Cur = {DataLeft:1 WorkLeft:-2}"},
		{func(s *Snapshot) { s.TData = -1 }, "TData = -1"},
		{func(s *Snapshot) { s.NCom = 0 }, "NCom = 0"},
		{func(s *Snapshot) { s.ExtraReplicas = -1 }, "ExtraReplicas = -1"},
		{func(s *Snapshot) { s.Tasks[1].Copies = -1 }, "task 1 (ID 101): -1 copies"},
	}
	for _, c := range cases {
		s := good()
		c.f(s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}

// TestDecisionIgnoresIDs: the IDs only name processors and tasks for the
// driver: renaming them changes no pick (picks are indices).
func TestDecisionIgnoresIDs(t *testing.T) {
	rng := stream.New(43)
	var d Decider
	for it := 0; it < 200; it++ {
		s := randomSnapshot(rng)
		h := Paper()[rng.IntN(len(Paper()))]
		a := slices.Clone(d.Decide(h, s, stream.New(44, uint64(it)), nil))
		for q := range s.Procs {
			s.Procs[q].ID = 1000 - 7*int64(q)
		}
		for i := range s.Tasks {
			s.Tasks[i].ID = -int64(i) * 13
		}
		if b := d.Decide(h, s, stream.New(44, uint64(it)), nil); !slices.Equal(a, b) {
			t.Fatalf("it %d %v: picks %v, after renaming %v", it, h, a, b)
		}
	}
}
