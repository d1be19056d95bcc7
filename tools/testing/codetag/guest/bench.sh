#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make bench" inside the guest: run the microbenchmark module and hand its
# figures ("row instructions-per-pair") to the host on ttyS1.

RESULTS=${RESULTS:-/dev/ttyS1}
stty -F $RESULTS raw -echo 2>/dev/null

# Memory in use after boot and a busybox workload, for the memory line:
# free pages and pages on the per-CPU free lists (which MemFree leaves
# out) are the only memory not in use. Taken before the benchmark, whose
# alloc_tags.ctx row sets up the stack depot, which stays.
find / -xdev > /dev/null 2>&1
ls -lR /proc/sys > /dev/null 2>&1
for i in 1 2 3 4 5 6 7 8 9 10; do sh -c 'cat /proc/meminfo > /dev/null'; done
free_kb=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
pcp_kb=$(awk '$1 == "count:" { s += $2 } END { print s * 4 }' /proc/zoneinfo)

insmod /modules/codetag_bench.ko

{
	dmesg | sed -n 's/.*codetag_bench: row //p'
	echo "mem_free_kb $((free_kb + pcp_kb))"
	echo done
} > $RESULTS
