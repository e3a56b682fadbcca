#!/bin/sh
# step.sh INPUT OUTPUT: the SHA-256 of the input, the iteration and the task.
set -eu
{ cat "$1"; printf 'iteration %s task %s\n' "$VOLSCHED_ITER" "$VOLSCHED_TASK"; } | sha256sum | cut -d' ' -f1 > "$2"
