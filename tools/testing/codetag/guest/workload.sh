#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make bench" on a distro flavour: a fixed stress-ng run, bounded by its
# operation counts, in a guest whose time counts instructions (one vCPU,
# qemu -icount shift=0,sleep=off). Hands the host on ttyS1:
#
#   busy_ns N       instructions the run took: guest time less the time
#                   the CPU was idle (waiting for the disk, say)
#   in_use_kb N     RAM not free after it (the per-CPU free lists count as
#                   free), the kernel image and boot-time tables included
#   meminfo F N     Slab, SReclaimable, SUnreclaim in kB
#   vector_bytes N  what the slabs' vectors of tags take (alloc_tags.summary)
#   slab LINE       /proc/slabinfo, one line a cache
#   log LINE        the boot log's lines on page tags and page_ext

RESULTS=${RESULTS:-/dev/ttyS1}
stty -F $RESULTS raw -echo 2>/dev/null
. /tests/lib.sh
W=/tmp/workload

# The stressors of the soak that run on one CPU without a disk of their
# own, each bounded by a number of operations so that every kernel does
# the same work, on tmpfs, as an unprivileged user, like the programs it
# stands for. Its exec stressor is left out: stress-ng 0.15 skips it as
# root and, as another user, runs it past --exec-ops; a shell runs
# /bin/true instead, the same number of times on every kernel. Warmed up
# once, so that the measured run reads nothing from the root disk.
stressors() {
	as_user sh -c "i=0; while [ \$i -lt $((40 * SCALE)) ]; do
		/bin/true; i=\$((i + 1)); done" &
	as_user stress-ng --temp-path $W --oomable --timeout 0 "$@" \
		--fork 1 --fork-ops $((400 * SCALE)) \
		--mmap 1 --mmap-ops $((4 * SCALE)) --mmap-bytes 16M \
		--fault 1 --fault-ops $((2000 * SCALE)) \
		--pipe 1 --pipe-ops $((20000 * SCALE)) \
		--sock 1 --sock-ops $((200 * SCALE)) --sock-domain ipv4 \
		--sockpair 1 --sockpair-ops $((2000 * SCALE)) \
		--hdd 1 --hdd-ops $((200 * SCALE)) --hdd-bytes 4M \
		--dentry 1 --dentry-ops $((20 * SCALE)) \
		--dir 1 --dir-ops $((20 * SCALE)) \
		--memfd 1 --memfd-ops $((4 * SCALE)) \
		--madvise 1 --madvise-ops $((4 * SCALE)) \
		--vm 1 --vm-ops $((200 * SCALE)) --vm-bytes 32M
	_rc=$?
	wait
	return $_rc
}

# Seconds of idle and iowait time of the only CPU, in USER_HZ ticks.
idle_ticks() { awk '$1 == "cpu" { print $5 + $6 }' /proc/stat; }

ip link set lo up
mkdir -p $W
mount -t tmpfs -o mode=1777 tmpfs $W
SCALE=1 stressors > /dev/null 2>&1

SCALE=$(sed -n 's/.*codetag\.workload=\([0-9]*\).*/\1/p' /proc/cmdline)
SCALE=${SCALE:-5}
sync
hz=$(getconf CLK_TCK)
i0=$(idle_ticks)
t0=$(/bin/date +%s%N)
stressors --metrics-brief > $W/stress-ng.log 2>&1
status=$?
t1=$(/bin/date +%s%N)
i1=$(idle_ticks)
cat $W/stress-ng.log

{
	echo "status $status"
	echo "skipped $(grep -c 'skipping the stressor' $W/stress-ng.log)"
	echo "busy_ns $(( t1 - t0 - (i1 - i0) * (1000000000 / hz) ))"
	echo "idle_ns $(( (i1 - i0) * (1000000000 / hz) ))"
	free=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
	pcp=$(awk '$1 == "count:" { s += $2 } END { print s * 4 }' /proc/zoneinfo)
	echo "in_use_kb $(( 2 * 1024 * 1024 - free - pcp ))"
	awk '$1 ~ /^(Slab|SReclaimable|SUnreclaim):$/ { sub(":", "", $1); print "meminfo", $1, $2 }' /proc/meminfo
	# What the slabs' vectors of tags take (none without the option).
	sed -n 's/^slab_vector_bytes /vector_bytes /p' \
		/sys/kernel/debug/alloc_tags.summary 2>/dev/null
	tail -n +3 /proc/slabinfo | sed 's/^/slab /'
	dmesg | grep -E 'page tags|page_ext' | sed 's/^\[[^]]*\] /log /'
	echo done
} > $RESULTS
