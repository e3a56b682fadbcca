package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/volsched/volsched/des"
)

// testDist: integers 1..100, atoms at 1 and 10, one log-normal.
func testDist() Dist {
	return Dist{Min: 1, Max: 100, Step: 1, Atoms: []Atom{{1, 0.3}, {10, 0.2}},
		Mix: []LogNormal{{W: 1, Mu: math.Log(8), Sigma: 1}}}
}

func TestDistAtomsAndGrid(t *testing.T) {
	d := testDist()
	if err := d.Validate("test"); err != nil {
		t.Fatal(err)
	}
	// An atom's probability is the whole mass of its value: the log-normal
	// part leaves atoms' values out.
	for _, a := range d.Atoms {
		if m := d.CDF(a.Value) - d.CDF(a.Value-1); math.Abs(m-a.P) > 1e-12 {
			t.Errorf("mass at %g = %g, want the atom's %g", a.Value, m, a.P)
		}
	}
	if d.CDF(0.5) != 0 || d.CDF(100) != 1 || d.CDF(1e9) != 1 {
		t.Errorf("CDF outside the support: %g %g %g", d.CDF(0.5), d.CDF(100), d.CDF(1e9))
	}
	// Between grid values the CDF is flat; it never decreases.
	if d.CDF(5.5) != d.CDF(5) {
		t.Errorf("CDF(5.5) = %g, CDF(5) = %g: want a step function on the grid", d.CDF(5.5), d.CDF(5))
	}
	prev := 0.0
	for x := 1.0; x <= 100; x++ {
		p := d.CDF(x)
		if p < prev {
			t.Fatalf("CDF(%g) = %g < CDF(%g) = %g", x, p, x-1, prev)
		}
		prev = p
	}
	// The table lists every value of the grid with the model's CDF, so
	// sampling it is exact.
	c := d.Table("t")
	if len(c.Values) != 100 || c.Probs[99] != 1 {
		t.Fatalf("table of %d values, last probability %g: want 100 and 1", len(c.Values), c.Probs[99])
	}
	for i, v := range c.Values {
		if math.Abs(c.Probs[i]-d.CDF(v)) > 1e-12 {
			t.Errorf("table at %g: %g, CDF %g", v, c.Probs[i], d.CDF(v))
		}
	}
	if KS(c, c) != 0 {
		t.Errorf("KS of a table with itself = %g", KS(c, c))
	}
}

func TestDistContinuousTable(t *testing.T) {
	// A continuous quantity on a wide support: a log grid, atoms kept.
	d := Dist{Min: 1, Max: 1e8, Atoms: []Atom{{1, 0.25}}, Mix: []LogNormal{{0.5, math.Log(100), 1}, {0.5, math.Log(1e5), 2}}}
	if err := d.Validate("test"); err != nil {
		t.Fatal(err)
	}
	c := d.Table("t")
	if n := len(c.Values); n < logGridPoints || n > logGridPoints+3 {
		t.Errorf("table of %d values, want about %d", n, logGridPoints)
	}
	if c.Quantile(0.2) != 1 || c.Quantile(1) != 1e8 {
		t.Errorf("Quantile(0.2) = %g (want the atom 1), Quantile(1) = %g (want max)", c.Quantile(0.2), c.Quantile(1))
	}
	// The table is the model up to the grid's resolution.
	worst := 0.0
	for _, x := range []float64{2, 30, 100, 999, 1e4, 1e5, 3e6, 9e7} {
		worst = math.Max(worst, math.Abs(c.At(x)-d.CDF(x)))
	}
	if worst > 0.003 {
		t.Errorf("table differs from the model's CDF by %g", worst)
	}
	// A decimal step gives decimal values.
	d.Step, d.Min, d.Max, d.Atoms = 0.1, 0.5, 100000, []Atom{{1.1, 0.1}}
	c = d.Table("t")
	for _, v := range []float64{0.5, 1.1, 100000} {
		if c.At(v) == c.At(math.Nextafter(v, 0)) {
			t.Errorf("no table value at %g", v)
		}
	}
}

func TestDistValidateNamesTheField(t *testing.T) {
	cases := []struct {
		change func(d *Dist)
		want   string
	}{
		{func(d *Dist) { d.Max = 0 }, "max 0"},
		{func(d *Dist) { d.Step = -1 }, "step -1"},
		{func(d *Dist) { d.Max = 100.5 }, "max 100.5"},
		{func(d *Dist) { d.Atoms[0].P = 1.5 }, "atom 0 probability 1.5"},
		{func(d *Dist) { d.Atoms[1].Value = 1000 }, "atom 1 value 1000"},
		{func(d *Dist) { d.Atoms[1].Value = 1 }, "atom 1 value 1"},
		{func(d *Dist) { d.Atoms[0].P = 0.8 }, "atoms' total probability"},
		{func(d *Dist) { d.Mix = nil }, "no log-normal"},
		{func(d *Dist) { d.Mix[0].Sigma = 0 }, "log-normal 0"},
		{func(d *Dist) { d.Mix[0].W = 0.5 }, "weights sum to 0.5"},
		{func(d *Dist) { d.Mix[0].Mu = 100 }, "no mass on the support"},
		{func(d *Dist) { d.Offset = math.NaN() }, "offset NaN"},
	}
	for _, k := range cases {
		d := testDist()
		d.Atoms = append([]Atom(nil), d.Atoms...)
		d.Mix = append([]LogNormal(nil), d.Mix...)
		k.change(&d)
		if err := d.Validate("x"); err == nil || !strings.Contains(err.Error(), k.want) || !strings.Contains(err.Error(), "workload model x") {
			t.Errorf("Validate() = %v, want an error naming x and containing %q", err, k.want)
		}
	}
}

func TestAppModelHist(t *testing.T) {
	m := AppModel{
		Tasks: Dist{Min: 1, Max: 64, Step: 1, Atoms: []Atom{{1, 0.5}, {8, 0.2}}, Mix: []LogNormal{{1, math.Log(16), 0.7}}},
		Groups: []AppGroup{
			{MinTasks: 1, Length: Dist{Min: 1000, Max: 1e7, Step: 1000, Mix: []LogNormal{{1, math.Log(1e4), 1}}},
				MemFromCDF: 0.4, MemKB: &Dist{Min: 0, Max: 1e6, Atoms: []Atom{{0, 0.3}}, Mix: []LogNormal{{1, math.Log(1e4), 2}}}},
			{MinTasks: 4, Length: Dist{Min: 1000, Max: 1e8, Step: 1000, Mix: []LogNormal{{1, math.Log(1e6), 1}}}, MemFromCDF: 1},
		},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	h := m.Hist("h")
	total, serial, fromCDF, small := 0.0, 0.0, 0.0, 0.0 // serial: the first group (1-3 tasks)
	for _, c := range h.Classes {
		total += c.Freq
		if c.Tasks < 4 { // the first group
			serial += c.Freq
			if c.MemKB < 0 {
				fromCDF += c.Freq
			}
		} else if c.MemKB >= 0 {
			t.Fatalf("class %+v: a parallel class with a given memory, want all from taskmaxmem", c)
		}
		if c.Tasks >= 4 && c.LengthMI < 1e5 {
			small += c.Freq
		}
		if math.Mod(c.LengthMI, 1000) != 0 || c.LengthMI < 1000 {
			t.Fatalf("class %+v: length not on the 1000 MI grid", c)
		}
	}
	if want := m.Tasks.CDF(3); math.Abs(total-1) > 1e-9 || math.Abs(serial-want) > 1e-9 || math.Abs(fromCDF/serial-0.4) > 1e-9 {
		t.Errorf("frequencies: total %g (want 1), first group %g (want P(tasks <= 3) = %g), from taskmaxmem %g of it (want 0.4)", total, serial, want, fromCDF/serial)
	}
	// The group of 4+ tasks has its own length: median 10^6 MI.
	if small > 0.05 {
		t.Errorf("%g of the mass in classes of >= 4 tasks shorter than 10^5 MI, want the group's length model (~1 %%)", small)
	}
	if g := m.group(3); g != 0 {
		t.Errorf("group(3) = %d, want 0", g)
	}
	if g := m.group(64); g != 1 {
		t.Errorf("group(64) = %d, want 1", g)
	}
}

// TestEmbeddedModel: the model compiled into the binary is valid, says
// where it comes from, and drives the generator.
func TestEmbeddedModel(t *testing.T) {
	m := Embedded()
	if len(m.Provenance.Files) != 10 || m.Provenance.Fitted == "" || m.Provenance.Method == "" {
		t.Fatalf("provenance %+v: want the 10 files, a date and a method", m.Provenance)
	}
	for _, f := range m.Provenance.Files {
		if len(f.SHA256) != 64 || f.Bytes <= 0 {
			t.Errorf("source file %+v: want its size and SHA-256", f)
		}
	}
	if len(m.Quality) < 10 {
		t.Fatalf("%d fit-quality entries, want one per distribution at least", len(m.Quality))
	}
	for _, q := range m.Quality {
		// docs/workload-model.md: the fits are within a few percent.
		if !(q.KS >= 0 && q.KS < 0.05) {
			t.Errorf("%s: KS distance %g, want < 0.05", q.Name, q.KS)
		}
	}
	d := EmbeddedDistributions()
	if d.Model != m.Name || d != EmbeddedDistributions() {
		t.Fatalf("EmbeddedDistributions: model %q, want %q, built once", d.Model, m.Name)
	}
	for _, c := range []*CDF{d.ThinkTime, d.BreakTime, d.BatchWidth, d.InterBatch, d.JobRepeat, d.JobSize, d.TaskDeadline, d.TaskLength, d.TaskMaxMem} {
		for i := range c.Values {
			if i > 0 && (c.Values[i] <= c.Values[i-1] || c.Probs[i] < c.Probs[i-1]) {
				t.Fatalf("%s: not increasing at %d", c.Name, i)
			}
		}
		if c.Probs[len(c.Probs)-1] != 1 {
			t.Fatalf("%s: last probability %g", c.Name, c.Probs[len(c.Probs)-1])
		}
	}
	// The README's ranges.
	if d.ThinkTime.Values[0] < 1 || d.ThinkTime.Values[len(d.ThinkTime.Values)-1] > 1201 ||
		d.BreakTime.Values[0] < 1201 || d.BreakTime.Values[len(d.BreakTime.Values)-1] > 28799 {
		t.Errorf("think time %g..%g, break time %g..%g: want the data's ranges", d.ThinkTime.Values[0], d.ThinkTime.Values[len(d.ThinkTime.Values)-1],
			d.BreakTime.Values[0], d.BreakTime.Values[len(d.BreakTime.Values)-1])
	}
	p := DefaultParams()
	for _, src := range []string{"hist", "cdf"} {
		p.AppSource = src
		a, err := Generate(&p, d, 1, 200, 7*des.Day)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(&p, d, 1, 200, 7*des.Day)
		if len(a) < 1000 || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: %d jobs for 200 users in a week (want > 1000), same seed same jobs: %v", src, len(a), reflect.DeepEqual(a, b))
		}
	}
	// The environment chooses the data; empty means the model.
	t.Setenv(DataDirEnv, "")
	if x, err := DefaultDistributions(); err != nil || x != d {
		t.Errorf("DefaultDistributions() with %s empty: %v, %v; want the embedded model", DataDirEnv, x, err)
	}
	t.Setenv(DataDirEnv, t.TempDir())
	if _, err := DefaultDistributions(); err == nil || !strings.Contains(err.Error(), DataDirEnv) {
		t.Errorf("DefaultDistributions() with %s an empty folder: %v; want an error naming the variable", DataDirEnv, err)
	}
}

func TestReadSiteModelErrors(t *testing.T) {
	good, err := os.ReadFile("sitemodel.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{"", "EOF"},
		{"{", "unexpected EOF"},
		{`{"name": "x", "bogus": 1}`, `unknown field "bogus"`},
		{string(good) + "{}", "data after"},
		{`{"name": ""}`, "no name"},
		{strings.Replace(string(good), `"thinktime": {
    "min": 1,`, `"thinktime": {
    "min": -1,`, 1), "workload model thinktime.cdf: min -1"},
	}
	for _, k := range cases {
		_, err := ReadSiteModel(strings.NewReader(k.in), "m.json")
		if err == nil || !strings.Contains(err.Error(), k.want) || !strings.HasPrefix(err.Error(), "m.json") {
			t.Errorf("ReadSiteModel(%.40q...) = %v, want an error naming m.json and containing %q", k.in, err, k.want)
		}
	}
}

func FuzzReadSiteModel(f *testing.F) {
	good, err := os.ReadFile("sitemodel.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(good))
	f.Add(`{"name":"x","thinktime":{"min":1,"max":2,"step":1,"offset":0,"lognormals":[{"w":1,"mu":0,"sigma":1}]}}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ReadSiteModel(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		// A model that validates can be tabulated and sampled.
		d := m.Distributions()
		for _, u := range []float64{0, 0.5, 1} {
			d.ThinkTime.Quantile(u)
			d.Apps.Sample(u)
		}
	})
}

// TestEmbeddedModelMatchesData checks the committed fit against the files
// it was fitted to: their SHA-256 and the recorded fit quality. It needs
// the data folder (set VOLSCHED_WORKLOAD_DATA) and skips without it: it
// tests the record of the fit, not the product.
func TestEmbeddedModelMatchesData(t *testing.T) {
	dir := FindDataDir()
	if dir == "" {
		t.Skipf("checks the embedded model against the empirical files: set %s to their folder", DataDirEnv)
	}
	m := Embedded()
	for _, f := range m.Provenance.Files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != f.SHA256 || int64(len(b)) != f.Bytes {
			t.Errorf("%s: sha256 %x (%d bytes), the model was fitted to %s (%d bytes)", f.Name, h, len(b), f.SHA256, f.Bytes)
		}
	}
	if testing.Short() {
		t.Skip("the fit quality's recomputation reads 5 MB of files; skipped with -short")
	}
	d, err := LoadDistributions(dir)
	if err != nil {
		t.Fatal(err)
	}
	q, err := m.Compare(d)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q, m.Quality) {
		t.Errorf("recorded fit quality differs from the recomputed one:\n%+v\nwant\n%+v", m.Quality, q)
	}
}
