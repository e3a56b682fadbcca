#!/bin/sh
# driver.sh ITER RESULTS_DIR TASKS_DIR: TASKS tasks, ITERATIONS iterations;
# each iteration's input of a task is its previous result. At the end the
# chains' last links go to $VOLSCHED_OUTPUT/chains.txt.
set -eu
iter=$1 results=$2 tasks=$3
TASKS=${TASKS:-6}
ITERATIONS=${ITERATIONS:-3}
if [ -f ./hashchain.conf ]; then . ./hashchain.conf; fi
if [ "$iter" -eq 0 ]; then
	t=0
	while [ "$t" -lt "$TASKS" ]; do
		printf 'seed %d\n' "$t" > "$(printf '%s/chain-%03d' "$tasks" "$t")"
		t=$((t + 1))
	done
	exit 0
fi
if [ "$iter" -ge "$ITERATIONS" ]; then
	for f in "$results"/chain-*; do printf '%s %s\n' "$(basename "$f")" "$(cat "$f")"; done > "$VOLSCHED_OUTPUT/chains.txt"
	exit 0
fi
for f in "$results"/chain-*; do cp "$f" "$tasks/"; done
