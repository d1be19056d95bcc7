#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": instructions per allocate+free pair, measured in one run.
#
# The guest runs under "qemu -icount shift=0,sleep=off" with one vCPU: one
# guest nanosecond is one instruction, so the figures are instruction
# counts that repeat exactly whatever else the host is doing.
#
# Columns are kernels. Today there is one: the guest kernel, with the
# codetag core and no allocation profiling ("compiled out"). The alloc_tag
# work adds "compiled in, disabled" and "enabled" beside it.

set -euo pipefail
HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HARNESS/../../.." && pwd)
B=$ROOT/build
LOGS=$B/logs
H=$HARNESS/harness.sh
mkdir -p "$LOGS"

quiet() {
	local log=$LOGS/$1.log
	shift
	if ! "$@" > "$log" 2>&1; then
		echo "failed: $* (log: ${log#$ROOT/})" >&2
		tail -20 "$log" >&2
		exit 1
	fi
}

quiet deps "$H" deps
quiet tree "$H" tree
quiet kernel-guest "$H" kernel guest
quiet initramfs-guest "$H" initramfs guest
quiet bench-guest "$H" boot guest bench

results=$B/bench-guest.txt
tr -d '\r' < "$results" > "$results.clean"
grep -q '^done$' "$results.clean" || {
	echo "bench: the guest did not finish (log: build/logs/bench-guest.log)" >&2
	exit 1
}
printf '%-22s %14s\n' "allocate+free pair" "compiled out"
printf '%-22s %14s\n' "" "instructions"
grep -v '^done$' "$results.clean" | while read -r row value; do
	printf '%-22s %14s\n' "$row" "$value"
done
