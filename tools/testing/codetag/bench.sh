#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": instructions per allocate+free pair, measured in one run.
#
# The guest runs under "qemu -icount shift=0,sleep=off" with one vCPU: one
# guest nanosecond is one instruction, so the figures are instruction
# counts that repeat exactly whatever else the host is doing.
#
# Columns: the guest kernel built without allocation profiling ("out"),
# the guest kernel with it compiled in but booted with
# sysctl.vm.mem_profiling=0 ("off"), and the same kernel with it on ("on").

set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# run FLAVOR NAME [CMDLINE]: one benchmark boot, results in bench-NAME.txt
run() {
	CODETAG_APPEND=${3:-} quiet "bench-$2" "$H" boot "$1" bench
	tr -d '\r' < "$B/bench-$1.txt" > "$B/bench-$2.txt"
	grep -q '^done$' "$B/bench-$2.txt" || {
		echo "bench: the $2 guest did not finish (log: build/logs/bench-$2.log)" >&2
		exit 1
	}
}

quiet deps "$H" deps
quiet tree "$H" tree
for flavor in nopro guest; do
	quiet "kernel-$flavor" "$H" kernel "$flavor"
	quiet "initramfs-$flavor" "$H" initramfs "$flavor"
done
run nopro out
run guest off sysctl.vm.mem_profiling=0
run guest on sysctl.vm.mem_profiling=1

printf '%-22s %10s %10s %10s %9s %9s\n' "allocate+free pair" out off on "off/out" "on/out"
printf '%-22s %10s %10s %10s %9s %9s\n' "(instructions)" "" "" "" "" ""
grep -v '^done$\|^mem_' "$B/bench-out.txt" | while read -r row out; do
	off=$(awk -v r="$row" '$1 == r { print $2 }' "$B/bench-off.txt")
	on=$(awk -v r="$row" '$1 == r { print $2 }' "$B/bench-on.txt")
	awk -v r="$row" -v a="$out" -v b="$off" -v c="$on" 'BEGIN {
		printf "%-22s %10s %10s %10s %+8.1f%% %+8.1f%%\n", r, a, b, c,
			(b / a - 1) * 100, (c / a - 1) * 100 }'
done

# The framework's memory: what the guest has in use beyond the kernel
# built without it, after the same boot and workload (1 GiB guest).
echo
awk '$1 == "mem_free_kb" { f[FILENAME] = $2 }
     END {
	out = f[ARGV[1]]; off = f[ARGV[2]]; on = f[ARGV[3]]
	printf "memory in use beyond the compiled-out kernel, 1 GiB guest after boot and a workload:\n"
	printf "  off: %d kB (%.3f%% of RAM)   on: %d kB (%.3f%% of RAM)\n",
		out - off, (out - off) * 100 / 1048576, out - on, (out - on) * 100 / 1048576
     }' "$B/bench-out.txt" "$B/bench-off.txt" "$B/bench-on.txt"
