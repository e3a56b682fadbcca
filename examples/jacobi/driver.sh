#!/bin/sh
# driver.sh ITER RESULTS_DIR TASKS_DIR (run by the volsched master).
# Iteration 0 starts from x = 0; later ones assemble x from the blocks'
# results. When max |x_new - x_old| < tol (or after maxiter iterations) it
# writes the solution to $VOLSCHED_OUTPUT/x.txt and no task: the end.
set -eu
iter=$1 results=$2 tasks=$3
. ./jacobi.conf
x=$(mktemp)
trap 'rm -f "$x"' EXIT
if [ "$iter" -eq 0 ]; then
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print 0 }' > "$x"
	delta=inf
else
	delta=$(awk -v n="$n" -v out="$x" '
		$1 == "delta" { if ($2 + 0 > delta) delta = $2 + 0; next }
		{ v[$1 + 0] = $2; seen++ }
		END {
			if (seen != n) { print "driver.sh: results hold " seen " rows, want " n > "/dev/stderr"; exit 1 }
			for (i = 0; i < n; i++) print v[i] > out
			printf "%.17g\n", delta
		}' "$results"/block-*)
	if awk -v d="$delta" -v t="$tol" -v i="$iter" -v m="$maxiter" 'BEGIN { exit !(d + 0 < t + 0 || i >= m) }'; then
		cp "$x" "$VOLSCHED_OUTPUT/x.txt"
		echo "$iter" > "$VOLSCHED_OUTPUT/iterations.txt"
		exit 0
	fi
fi
lo=0 k=0
while [ "$lo" -lt "$n" ]; do
	hi=$((lo + block)); [ "$hi" -gt "$n" ] && hi=$n
	f=$(printf '%s/block-%03d' "$tasks" "$k")
	{ echo "$n $lo $hi"; cat "$x"; } > "$f"
	lo=$hi k=$((k + 1))
done
