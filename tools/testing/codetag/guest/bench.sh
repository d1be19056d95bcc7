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

# A write(2) that fails with a plain -EINVAL, with -ERR(EINVAL), and with
# -ERR(EINVAL) while the errcode_syscall_exit event is enabled (recorded
# into the trace buffer, nobody reading).
F=/sys/kernel/debug/codetag_bench_errno
EV=/sys/kernel/tracing/events/errcode/errcode_syscall_exit/enable
if [ -e $F ]; then
	syscall_plain=$(syscall-cost $F p 20000)
	syscall_err=$(syscall-cost $F u 20000)
	mount -t tracefs none /sys/kernel/tracing 2>/dev/null
	if [ -e $EV ]; then
		echo 1 > $EV
		syscall_traced=$(syscall-cost $F u 20000)
		echo 0 > $EV
	fi
fi

{
	dmesg | sed -n 's/.*codetag_bench: row //p'
	[ -n "${syscall_plain:-}" ] && echo "syscall_fail_plain $syscall_plain"
	[ -n "${syscall_err:-}" ] && echo "syscall_fail_ERR $syscall_err"
	[ -n "${syscall_traced:-}" ] && echo "syscall_fail_ERR_traced $syscall_traced"
	echo "mem_free_kb $((free_kb + pcp_kb))"
	# Every slab cache's slab_size, objects per slab and order.
	for d in /sys/kernel/slab/*; do
		echo "slab ${d##*/} $(cat $d/slab_size) $(cat $d/objs_per_slab) $(cat $d/order)"
	done
	echo done
} > $RESULTS
