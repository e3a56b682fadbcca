// Command fitworkload fits the embedded site-level workload model
// (workload.SiteModel, docs/workload-model.md) to the empirical
// distributions of a data folder and prints it as JSON:
//
//	go run ./tools/fitworkload -data DIR > workload/sitemodel.json
//
// With -markdown MODEL.json it prints instead the tables of
// docs/workload-model.md (parameters and fit quality) of a model file.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/volsched/volsched/workload"
)

// appGroups are the lower bounds of the numbers of tasks whose
// application classes share a length model: serial jobs, then powers of
// two grouped where the data's length distributions are alike
// (docs/workload-model.md).
var appGroups = []int{1, 2, 8, 16, 64, 128}

const modelName = "site-level-fit-1"

func main() {
	data := flag.String("data", os.Getenv(workload.DataDirEnv), "folder of the site-level workload distributions (default $"+workload.DataDirEnv+")")
	date := flag.String("date", time.Now().UTC().Format("2006-01-02"), "date recorded as the fit's")
	markdown := flag.String("markdown", "", "print the documentation tables of this model file instead of fitting")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected arguments %q", flag.Args()))
	}
	if *markdown != "" {
		f, err := os.Open(*markdown)
		if err != nil {
			fail(err)
		}
		m, err := workload.ReadSiteModel(f, *markdown)
		f.Close()
		if err != nil {
			fail(err)
		}
		writeMarkdown(os.Stdout, m)
		return
	}
	if *data == "" {
		fail(fmt.Errorf("-data: give the folder of the site-level workload distributions (or set %s)", workload.DataDirEnv))
	}
	m, err := fit(*data, *date)
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "fitworkload: %v\n", err)
	os.Exit(1)
}

// fit fits every distribution of the folder dir.
func fit(dir, date string) (*workload.SiteModel, error) {
	d, err := workload.LoadDistributions(dir)
	if err != nil {
		return nil, err
	}
	m := &workload.SiteModel{Name: modelName}
	m.Provenance, err = provenance(dir, date)
	if err != nil {
		return nil, err
	}
	for _, x := range []struct {
		dst *workload.Dist
		src *workload.CDF
	}{
		{&m.ThinkTime, d.ThinkTime}, {&m.BreakTime, d.BreakTime}, {&m.BatchWidth, d.BatchWidth},
		{&m.InterBatch, d.InterBatch}, {&m.JobRepeat, d.JobRepeat}, {&m.JobSize, d.JobSize},
		{&m.TaskDeadline, d.TaskDeadline}, {&m.TaskLength, d.TaskLength}, {&m.TaskMaxMem, d.TaskMaxMem},
	} {
		r, err := fitDist(x.src)
		if err != nil {
			return nil, err
		}
		*x.dst = r.dist
		fmt.Fprintf(os.Stderr, "%s: KS by number of log-normals %.4f, chose %d\n", filepath.Base(x.src.Name), r.tried, len(r.dist.Mix))
	}
	if m.Apps, err = fitApps(d.Apps); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Quality, err = m.Compare(d); err != nil {
		return nil, err
	}
	return m, nil
}

// fitApps fits the model of the application histogram.
func fitApps(h *workload.AppHist) (workload.AppModel, error) {
	var am workload.AppModel
	tasks, err := h.Marginal("app_distribution.hist tasks", func(c workload.AppClass) (float64, bool) { return float64(c.Tasks), true })
	if err != nil {
		return am, err
	}
	r, err := fitDist(tasks)
	if err != nil {
		return am, err
	}
	am.Tasks = r.dist
	fmt.Fprintf(os.Stderr, "apps tasks: KS %.4f, chose %d\n", r.tried, len(r.dist.Mix))
	for i, lo := range appGroups {
		hi := math.MaxInt
		if i+1 < len(appGroups) {
			hi = appGroups[i+1] - 1
		}
		in := func(c workload.AppClass) bool { return c.Tasks >= lo && c.Tasks <= hi }
		g := workload.AppGroup{MinTasks: lo}
		length, err := h.Marginal(fmt.Sprintf("app_distribution.hist length, tasks %d..%d", lo, hi),
			func(c workload.AppClass) (float64, bool) { return c.LengthMI, in(c) })
		if err != nil {
			return am, err
		}
		r, err := fitDist(length)
		if err != nil {
			return am, err
		}
		g.Length = r.dist
		fmt.Fprintf(os.Stderr, "apps length, tasks %d..%d: KS %.4f, chose %d\n", lo, hi, r.tried, len(r.dist.Mix))
		all, fromCDF := 0.0, 0.0
		for _, c := range h.Classes {
			if in(c) {
				all += c.Freq
				if c.MemKB < 0 {
					fromCDF += c.Freq
				}
			}
		}
		g.MemFromCDF = fromCDF / all
		if g.MemFromCDF < 1 {
			mem, err := h.Marginal(fmt.Sprintf("app_distribution.hist memory, tasks %d..%d", lo, hi),
				func(c workload.AppClass) (float64, bool) { return c.MemKB, in(c) && c.MemKB >= 0 })
			if err != nil {
				return am, err
			}
			r, err := fitDist(mem)
			if err != nil {
				return am, err
			}
			g.MemKB = &r.dist
			fmt.Fprintf(os.Stderr, "apps memory, tasks %d..%d: KS %.4f, chose %d\n", lo, hi, r.tried, len(r.dist.Mix))
		}
		am.Groups = append(am.Groups, g)
	}
	return am, nil
}

// provenance describes the files of dir.
func provenance(dir, date string) (workload.Provenance, error) {
	p := workload.Provenance{
		Source: "the site-level workload distributions of seed 004's authors (STaRS, github.com/jcelaya/stars, commit e67f226, share/oldsim/traces; " +
			"derived from seven Parallel Workloads Archive logs), as given to this project in its shared data folder; the files are not part of this repository",
		Fitted: date,
		Method: fmt.Sprintf("per distribution: the data's support and grid step; atoms at the values holding >= %g of the probability (at most %d, "+
			"empirical probabilities); a mixture of K log-normals of ln(x + offset) fitted to the rest by minimum Cramér–von Mises distance "+
			"weighted as Anderson–Darling's (Nelder–Mead, gonum/optimize), K the smallest of 1..%d with a KS distance within %g× the best K's "+
			"or below %g and a mean within %g of the data's (else the closest mean among those); "+
			"app_distribution.hist: the number of tasks as above, then per group of numbers of tasks the length as above and the memory "+
			"(share drawn from taskmaxmem, the rest as above); the relative-deadline column is not modelled (the generator does not use it)",
			atomMass, maxAtoms, maxComponents, ksSlack, ksGood, meanSlack),
		Program: "go run ./tools/fitworkload -data DIR -date " + date,
	}
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return p, err
	}
	sort.Strings(names)
	for _, n := range names {
		base := filepath.Base(n)
		if filepath.Ext(base) != ".cdf" && filepath.Ext(base) != ".hist" {
			continue
		}
		f, err := os.Open(n)
		if err != nil {
			return p, err
		}
		h := sha256.New()
		k, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return p, err
		}
		p.Files = append(p.Files, workload.SourceFile{Name: base, Bytes: k, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return p, nil
}
