#!/bin/sh
# block.sh INPUT OUTPUT: one Jacobi sweep over rows lo..hi-1.
# INPUT:  "n lo hi" then the n values of x, one per line.
# OUTPUT: "delta D" (max |x_new - x_old| over the block) then "i x_new[i]" per row.
# A[i][i] = n, A[i][j] = 1/(1+|i-j|) otherwise; b[i] = i+1.
set -eu
awk '
NR == 1 { n = $1; lo = $2; hi = $3; next }
{ x[NR - 2] = $1 + 0 }
END {
	if (NR - 1 != n) { print "block.sh: got " NR - 1 " values of x, want " n > "/dev/stderr"; exit 1 }
	delta = 0
	for (i = lo; i < hi; i++) {
		s = i + 1
		for (j = 0; j < n; j++) {
			if (j == i) continue
			d = i - j; if (d < 0) d = -d
			s -= x[j] / (1 + d)
		}
		v[i] = s / n
		d = v[i] - x[i]; if (d < 0) d = -d
		if (d > delta) delta = d
	}
	printf "delta %.17g\n", delta
	for (i = lo; i < hi; i++) printf "%d %.17g\n", i, v[i]
}' "$1" > "$2"
