// Package workload generates and reads the job workloads of seed 004's
// experiments: the site-level user model of Shmueli and Feitelson as §7.2
// of the paper uses it (driven by the authors' empirical distributions
// read from files at run time, or by default by an embedded parametric
// model fitted to them: SiteModel, docs/workload-model.md), job traces
// generated once and replayed, and the Standard Workload Format (SWF) of
// the Parallel Workloads Archive.
package workload

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// CDF is an empirical distribution given by points (value, cumulative
// probability), values and probabilities non-decreasing, the last
// probability 1. Sampling is by inverse transform without interpolation:
// the smallest value whose cumulative probability is >= u. The files hold
// integer-valued quantities (seconds, jobs, tasks), for which a step
// function keeps the support exact.
type CDF struct {
	Name   string
	Values []float64
	Probs  []float64
}

// ReadCDF parses "value probability" lines (blank lines and lines starting
// with # are skipped). name is used in error messages, which give the line
// number.
func ReadCDF(r io.Reader, name string) (*CDF, error) {
	c := &CDF{Name: name}
	err := scanRecords(r, name, 2, "value probability", func(line int, f []string) error {
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s:%d: value %q: want a finite number", name, line, f[0])
		}
		p, err := strconv.ParseFloat(f[1], 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return fmt.Errorf("%s:%d: probability %q: want a number in [0, 1]", name, line, f[1])
		}
		if n := len(c.Values); n > 0 {
			if v < c.Values[n-1] {
				return fmt.Errorf("%s:%d: value %g after %g: want non-decreasing values", name, line, v, c.Values[n-1])
			}
			if p < c.Probs[n-1] {
				return fmt.Errorf("%s:%d: probability %g after %g: want non-decreasing probabilities", name, line, p, c.Probs[n-1])
			}
		}
		c.Values = append(c.Values, v)
		c.Probs = append(c.Probs, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(c.Values) == 0 {
		return nil, fmt.Errorf("%s: no points", name)
	}
	if last := c.Probs[len(c.Probs)-1]; math.Abs(last-1) > 1e-6 {
		return nil, fmt.Errorf("%s: last cumulative probability %g, want 1", name, last)
	}
	c.Probs[len(c.Probs)-1] = 1
	return c, nil
}

// Quantile returns the smallest value whose cumulative probability is >= u
// (u in [0, 1]).
func (c *CDF) Quantile(u float64) float64 {
	i := sort.SearchFloat64s(c.Probs, u)
	if i >= len(c.Values) {
		i = len(c.Values) - 1
	}
	return c.Values[i]
}

// Mean is the mean of the step distribution.
func (c *CDF) Mean() float64 {
	m, prev := 0.0, 0.0
	for i, p := range c.Probs {
		m += (p - prev) * c.Values[i]
		prev = p
	}
	return m
}

// AppClass is one line of app_distribution.hist.
type AppClass struct {
	LengthMI    float64 // task length, millions of instructions
	Tasks       int     // tasks in the job
	RelDeadline float64 // relative deadline in the source logs, seconds (not used by the paper's deadline rule)
	MemKB       float64 // memory per task, KB; < 0 means draw from taskmaxmem.cdf
	Freq        float64 // relative frequency
}

// AppHist is a discrete distribution of application classes.
type AppHist struct {
	Name    string
	Classes []AppClass
	cum     []float64
}

// ReadAppHist parses app_distribution.hist: lines "length tasks deadline
// memory frequency"; lines starting with # are comments.
func ReadAppHist(r io.Reader, name string) (*AppHist, error) {
	h := &AppHist{Name: name}
	total := 0.0
	err := scanRecords(r, name, 5, "length tasks deadline memory frequency", func(line int, f []string) error {
		var v [5]float64
		for i, fld := range f {
			x, err := strconv.ParseFloat(fld, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s:%d: field %d %q: want a finite number", name, line, i+1, fld)
			}
			v[i] = x
		}
		switch {
		case !(v[0] > 0):
			return fmt.Errorf("%s:%d: task length %g: want > 0", name, line, v[0])
		case v[1] < 1 || v[1] != math.Trunc(v[1]) || v[1] > 1e9:
			return fmt.Errorf("%s:%d: number of tasks %g: want an integer >= 1", name, line, v[1])
		case v[2] < 0:
			return fmt.Errorf("%s:%d: relative deadline %g: want >= 0", name, line, v[2])
		case v[4] < 0:
			return fmt.Errorf("%s:%d: frequency %g: want >= 0", name, line, v[4])
		}
		total += v[4]
		h.Classes = append(h.Classes, AppClass{LengthMI: v[0], Tasks: int(v[1]), RelDeadline: v[2], MemKB: v[3], Freq: v[4]})
		h.cum = append(h.cum, total)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !(total > 0) {
		return nil, fmt.Errorf("%s: total frequency %g: want > 0", name, total)
	}
	return h, nil
}

// Sample returns the class for u in [0, 1), chosen with probability
// proportional to its frequency.
func (h *AppHist) Sample(u float64) AppClass {
	x := u * h.cum[len(h.cum)-1]
	i := sort.Search(len(h.cum), func(i int) bool { return h.cum[i] > x })
	if i >= len(h.cum) {
		i = len(h.cum) - 1
	}
	return h.Classes[i]
}

// Distributions are the empirical inputs of the site-level model (see the
// data folder's README for provenance and units).
type Distributions struct {
	ThinkTime    *CDF // seconds
	BreakTime    *CDF // seconds
	BatchWidth   *CDF // jobs
	InterBatch   *CDF // seconds between jobs of a batch
	JobRepeat    *CDF // repetitions
	JobSize      *CDF // tasks (used when Params.AppSource is "cdf")
	TaskLength   *CDF // MI (used when Params.AppSource is "cdf")
	TaskMaxMem   *CDF // MB
	TaskDeadline *CDF // seconds (read for completeness; the paper's rule replaces it)
	Apps         *AppHist
	// Model names the fitted model the tables were built from (the
	// embedded default, docs/workload-model.md); empty when they were
	// read from the empirical files.
	Model string
}

// DataDirEnv names the environment variable that may point at the data
// folder.
const DataDirEnv = "VOLSCHED_WORKLOAD_DATA"

// FindDataDir is for the tests and tools that need the empirical files
// themselves (the product's default is DefaultDistributions). It returns
// the first of: $VOLSCHED_WORKLOAD_DATA, then
// ../shared/data/site-level-workload relative to the working directory and
// to each of its ancestors (so it works from the checkout and from any
// package directory when the shared data sits beside the checkout). It
// returns "" if none holds thinktime.cdf.
func FindDataDir() string {
	if d := os.Getenv(DataDirEnv); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		c := filepath.Join(dir, "..", "shared", "data", "site-level-workload")
		if _, err := os.Stat(filepath.Join(c, "thinktime.cdf")); err == nil {
			return c
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// LoadDistributions reads every file of the data folder dir.
func LoadDistributions(dir string) (*Distributions, error) {
	d := &Distributions{}
	cdfs := []struct {
		file string
		dst  **CDF
	}{
		{"thinktime.cdf", &d.ThinkTime}, {"breaktime.cdf", &d.BreakTime},
		{"batchwidth.cdf", &d.BatchWidth}, {"interbatchtime.cdf", &d.InterBatch},
		{"jobrepeat.cdf", &d.JobRepeat}, {"jobsize.cdf", &d.JobSize},
		{"tasklength.cdf", &d.TaskLength}, {"taskmaxmem.cdf", &d.TaskMaxMem},
		{"taskdeadline.cdf", &d.TaskDeadline},
	}
	for _, c := range cdfs {
		p := filepath.Join(dir, c.file)
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("workload data: %w", err)
		}
		*c.dst, err = ReadCDF(f, p)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("workload data: %w", err)
		}
	}
	p := filepath.Join(dir, "app_distribution.hist")
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("workload data: %w", err)
	}
	defer f.Close()
	if d.Apps, err = ReadAppHist(f, p); err != nil {
		return nil, fmt.Errorf("workload data: %w", err)
	}
	return d, nil
}

// scanRecords calls fn with the whitespace-separated fields of every line of
// r that is not blank or a # comment, after checking that the line has want
// fields (described by desc in the error). Errors give name and the line
// number.
func scanRecords(r io.Reader, name string, want int, desc string, fn func(line int, f []string) error) error {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.Fields(s)
		if len(f) != want {
			return fmt.Errorf("%s:%d: %d fields, want %d (%s)", name, line, len(f), want, desc)
		}
		if err := fn(line, f); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	return nil
}
