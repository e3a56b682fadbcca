package workload

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// SiteModel is a parametric model of every distribution of the site-level
// model, fitted to the empirical files (docs/workload-model.md): the
// product's default workload when no data folder is given. Its fields are
// named after the files.
type SiteModel struct {
	Name       string     `json:"name"`
	Provenance Provenance `json:"provenance"`

	ThinkTime    Dist     `json:"thinktime"`
	BreakTime    Dist     `json:"breaktime"`
	BatchWidth   Dist     `json:"batchwidth"`
	InterBatch   Dist     `json:"interbatchtime"`
	JobRepeat    Dist     `json:"jobrepeat"`
	JobSize      Dist     `json:"jobsize"`
	TaskDeadline Dist     `json:"taskdeadline"`
	TaskLength   Dist     `json:"tasklength"`
	TaskMaxMem   Dist     `json:"taskmaxmem"`
	Apps         AppModel `json:"app_distribution"`

	// Quality is the fit's comparison with the files it was fitted to.
	Quality []FitQuality `json:"quality"`
}

// Provenance says what a model was fitted to, when and how.
type Provenance struct {
	Source  string       `json:"source"`
	Files   []SourceFile `json:"files"`
	Fitted  string       `json:"fitted"` // date, YYYY-MM-DD
	Method  string       `json:"method"`
	Program string       `json:"program"`
}

// SourceFile is one input file of a fit.
type SourceFile struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// FitQuality compares one distribution of a model (as the generator
// samples it) with the data: the Kolmogorov–Smirnov distance, the means
// and quantiles.
type FitQuality struct {
	Name      string     `json:"name"`
	Params    int        `json:"params"`
	KS        float64    `json:"ks"`
	MeanData  float64    `json:"mean_data"`
	MeanModel float64    `json:"mean_model"`
	Quantiles []Quantile `json:"quantiles"`
}

// Quantile is the data's and the model's quantile at probability P.
type Quantile struct {
	P     float64 `json:"p"`
	Data  float64 `json:"data"`
	Model float64 `json:"model"`
}

// dists lists the model's one-dimensional distributions with their file
// names.
func (m *SiteModel) dists() []struct {
	file string
	d    *Dist
} {
	return []struct {
		file string
		d    *Dist
	}{
		{"thinktime.cdf", &m.ThinkTime}, {"breaktime.cdf", &m.BreakTime},
		{"batchwidth.cdf", &m.BatchWidth}, {"interbatchtime.cdf", &m.InterBatch},
		{"jobrepeat.cdf", &m.JobRepeat}, {"jobsize.cdf", &m.JobSize},
		{"taskdeadline.cdf", &m.TaskDeadline}, {"tasklength.cdf", &m.TaskLength},
		{"taskmaxmem.cdf", &m.TaskMaxMem},
	}
}

// Validate checks every distribution of the model.
func (m *SiteModel) Validate() error {
	if m.Name == "" {
		return fmt.Errorf("workload model: no name")
	}
	for _, x := range m.dists() {
		if err := x.d.Validate(x.file); err != nil {
			return err
		}
	}
	return m.Apps.Validate()
}

// ReadSiteModel reads a model as JSON (the form of
// tools/fitworkload's output) and validates it.
func ReadSiteModel(r io.Reader, name string) (*SiteModel, error) {
	var m SiteModel
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the JSON object", name)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &m, nil
}

// Distributions returns the tables the generator samples, built from the
// model.
func (m *SiteModel) Distributions() *Distributions {
	d := &Distributions{Model: m.Name}
	tables := []**CDF{&d.ThinkTime, &d.BreakTime, &d.BatchWidth, &d.InterBatch, &d.JobRepeat, &d.JobSize,
		&d.TaskDeadline, &d.TaskLength, &d.TaskMaxMem}
	for i, x := range m.dists() {
		*tables[i] = x.d.Table(m.Name + " " + x.file)
	}
	d.Apps = m.Apps.Hist(m.Name + " app_distribution.hist")
	return d
}

//go:embed sitemodel.json
var siteModelJSON []byte

// Embedded returns the model compiled into the binary (workload/
// sitemodel.json).
var Embedded = sync.OnceValue(func() *SiteModel {
	m, err := ReadSiteModel(bytes.NewReader(siteModelJSON), "workload/sitemodel.json")
	if err != nil {
		panic(err) // a test checks the embedded file; a build that fails here was never tested
	}
	return m
})

// embeddedDists are the tables of the embedded model, built once: they are
// read-only, and sharing them lets the simulator identify the workload once
// per process.
var embeddedDists = sync.OnceValue(func() *Distributions { return Embedded().Distributions() })

// EmbeddedDistributions returns the generator's tables of the embedded
// model (shared: do not modify).
func EmbeddedDistributions() *Distributions { return embeddedDists() }

// DefaultDistributions returns the distributions a command uses when no
// data folder is given on its command line: the files of the folder named
// by $VOLSCHED_WORKLOAD_DATA when it is set and not empty, else the
// embedded model.
func DefaultDistributions() (*Distributions, error) {
	if dir := os.Getenv(DataDirEnv); dir != "" {
		d, err := LoadDistributions(dir)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", DataDirEnv, err)
		}
		return d, nil
	}
	return EmbeddedDistributions(), nil
}
