package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/volsched/volsched/workload"
)

// writeMarkdown prints the tables of docs/workload-model.md for m.
func writeMarkdown(w io.Writer, m *workload.SiteModel) {
	fmt.Fprintf(w, "Model `%s`, fitted %s.\n\n", m.Name, m.Provenance.Fitted)
	fmt.Fprintln(w, "| file | bytes | sha256 |")
	fmt.Fprintln(w, "|---|---:|---|")
	for _, f := range m.Provenance.Files {
		fmt.Fprintf(w, "| %s | %d | `%s` |\n", f.Name, f.Bytes, f.SHA256)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Parameters")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| distribution | support, step | atoms (value: probability) | log-normals of ln(x + offset): (share of the rest in the support, μ, σ) | parameters |")
	fmt.Fprintln(w, "|---|---|---|---|---:|")
	row := func(name string, d *workload.Dist) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d |\n", name, support(d), atoms(d), mixture(d), d.Params())
	}
	for _, x := range []struct {
		n string
		d *workload.Dist
	}{
		{"thinktime (s)", &m.ThinkTime}, {"breaktime (s)", &m.BreakTime}, {"batchwidth (jobs)", &m.BatchWidth},
		{"interbatchtime (s)", &m.InterBatch}, {"jobrepeat", &m.JobRepeat}, {"jobsize (tasks)", &m.JobSize},
		{"taskdeadline (s)", &m.TaskDeadline}, {"tasklength (MI)", &m.TaskLength}, {"taskmaxmem (MB)", &m.TaskMaxMem},
	} {
		row(x.n, x.d)
	}
	row("apps: tasks", &m.Apps.Tasks)
	for i, g := range m.Apps.Groups {
		r := groupRange(m, i)
		row("apps: length (MI), "+r, &g.Length)
		if g.MemKB != nil {
			row(fmt.Sprintf("apps: given memory (KB), %s (%.4g of classes: from taskmaxmem)", r, g.MemFromCDF), g.MemKB)
		}
	}
	var mem []string
	for i, g := range m.Apps.Groups {
		mem = append(mem, fmt.Sprintf("%s: %.4g", groupRange(m, i), g.MemFromCDF))
	}
	fmt.Fprintf(w, "\nApplication classes whose memory is drawn from taskmaxmem (the histogram's −1), by group: %s.\n", strings.Join(mem, "; "))
	fmt.Fprintf(w, "Parameters: %d in all.\n\n", total(m))
	fmt.Fprintln(w, "### Fit quality (the tables the generator samples against the files)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| distribution | KS | mean data | mean model | quantiles 1 %, 10 %, 50 %, 90 %, 99 %, 99.9 %: data / model |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|")
	for _, q := range m.Quality {
		var qs []string
		for _, x := range q.Quantiles {
			switch x.P {
			case 0.01, 0.1, 0.5, 0.9, 0.99, 0.999:
				qs = append(qs, g4(x.Data)+" / "+g4(x.Model))
			}
		}
		fmt.Fprintf(w, "| %s | %.4f | %s | %s | %s |\n", q.Name, q.KS, g4(q.MeanData), g4(q.MeanModel), strings.Join(qs, "; "))
	}
}

func total(m *workload.SiteModel) int {
	n := m.Apps.Params()
	for _, d := range []*workload.Dist{&m.ThinkTime, &m.BreakTime, &m.BatchWidth, &m.InterBatch, &m.JobRepeat,
		&m.JobSize, &m.TaskDeadline, &m.TaskLength, &m.TaskMaxMem} {
		n += d.Params()
	}
	return n
}

func groupRange(m *workload.SiteModel, i int) string {
	lo := m.Apps.Groups[i].MinTasks
	if i+1 == len(m.Apps.Groups) {
		return fmt.Sprintf("tasks >= %d", lo)
	}
	hi := m.Apps.Groups[i+1].MinTasks - 1
	if hi == lo {
		return fmt.Sprintf("tasks %d", lo)
	}
	return fmt.Sprintf("tasks %d–%d", lo, hi)
}

func g4(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

func support(d *workload.Dist) string {
	s := "[" + g4(d.Min) + ", " + g4(d.Max) + "]"
	if d.Step > 0 {
		s += ", step " + g4(d.Step)
	} else {
		s += ", continuous"
	}
	if d.Offset != 0 {
		s += ", offset " + g4(d.Offset)
	}
	return s
}

func atoms(d *workload.Dist) string {
	if len(d.Atoms) == 0 {
		return "—"
	}
	var s []string
	for _, a := range d.Atoms {
		s = append(s, g4(a.Value)+": "+strconv.FormatFloat(a.P, 'f', 4, 64))
	}
	return strings.Join(s, ", ")
}

// mixture prints d's components with their shares of the mass in the
// support (a component's weight times its mass in the truncation's
// interval, normalized): the weights themselves are not shares when a
// component lies mostly outside the support.
func mixture(d *workload.Dist) string {
	phi := func(c workload.LogNormal, x float64) float64 {
		if x+d.Offset <= 0 {
			return 0
		}
		return 0.5 * math.Erfc(-(math.Log(x+d.Offset)-c.Mu)/(c.Sigma*math.Sqrt2))
	}
	shares, total := make([]float64, len(d.Mix)), 0.0
	for j, c := range d.Mix {
		shares[j] = c.W * (phi(c, d.Max) - phi(c, d.Min-d.Step))
		total += shares[j]
	}
	var s []string
	for j, c := range d.Mix {
		s = append(s, fmt.Sprintf("(%.3g, %.3f, %.3f)", shares[j]/total, c.Mu, c.Sigma))
	}
	return strings.Join(s, " ")
}
