package workload

import (
	"testing"

	"github.com/volsched/volsched/des"
)

// loadData reads the shared data folder, or skips the test when it is not
// beside the checkout (set VOLSCHED_WORKLOAD_DATA to point at it). Only the
// tests of reading the authors' files themselves use it; the product's
// tests run on the embedded model.
func loadData(t testing.TB) *Distributions {
	t.Helper()
	dir := FindDataDir()
	if dir == "" {
		t.Skipf("reads the authors' empirical files, which are not part of the repository: set %s to their folder", DataDirEnv)
	}
	d, err := LoadDistributions(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRealDistributions(t *testing.T) {
	d := loadData(t)
	// Ranges stated in the data folder's README.
	if d.ThinkTime.Values[0] < 1 || d.ThinkTime.Values[len(d.ThinkTime.Values)-1] > 1201 {
		t.Errorf("think time range %g..%g s, want within 1..1201", d.ThinkTime.Values[0], d.ThinkTime.Values[len(d.ThinkTime.Values)-1])
	}
	if d.BreakTime.Values[0] < 1201 || d.BreakTime.Values[len(d.BreakTime.Values)-1] > 28799 {
		t.Errorf("break time range %g..%g s, want within 1201..28799", d.BreakTime.Values[0], d.BreakTime.Values[len(d.BreakTime.Values)-1])
	}
	if len(d.Apps.Classes) < 1000 {
		t.Errorf("%d application classes, want the whole histogram", len(d.Apps.Classes))
	}
	p := DefaultParams()
	for _, src := range []string{"hist", "cdf"} {
		p.AppSource = src
		jobs, err := Generate(&p, d, 1, 200, 7*des.Day)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) < 200 {
			t.Errorf("%s: %d jobs for 200 users in a week", src, len(jobs))
		}
		tasks := 0
		for _, j := range jobs {
			tasks += int(j.Tasks)
		}
		t.Logf("%s: 200 users, 7 days: %d jobs, %d tasks (%.1f jobs per user-day)", src, len(jobs), tasks, float64(len(jobs))/1400)
	}
}

func BenchmarkUserNext(b *testing.B) {
	d := EmbeddedDistributions()
	p := DefaultParams()
	u := NewUser(&p, d, 1, 0, 2000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		u.Next()
	}
}
