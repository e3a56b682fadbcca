// Package campaign runs the studies of Wingstrom & Casanova, "Probabilistic
// Allocation of Tasks on Desktop Grids" (seed 003), as `volsched exp
// redundant` and `volsched reproduce --only redundant` do: the laboratory
// Figures 1–3 (RunLab, with a points file to resume from, OpenPoints), the
// trace-driven Figure 4 (RunTrace) and the reduced reproduction
// (Reproduce). Each figure's table and the paper's claims next to it are
// printed, and its files (CSV, figure) written, by Report; what was
// reproduced comes back as data (Output) for the reproduction report.
//
// The computations themselves are package redundant's (LabFigure,
// TraceStudy, PaperClaims); this package adds the files, the text and the
// resume mechanism.
package campaign
