#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The soak, on a distro flavour (made for distro-debug): codetag.soak=SECONDS
# (300 by default) of a stress-ng mix, while memory faults are injected
# into the stress-ng processes, modules come and go, every application's
# controls are switched and its files read. Then: the filesystems are
# clean, no counter is negative, the page allocator's sites account for
# the memory in use; run.sh's splat check follows, with allocation failure
# reports allowed (ALLOC_FAILURES_EXPECTED).

. /tests/lib.sh
SECS=$(sed -n 's/.*codetag\.soak=\([0-9]*\).*/\1/p' /proc/cmdline)
SECS=${SECS:-300}
D=/sys/kernel/debug
M=/modules
W=/var/tmp/soak
END=$(( $(date +%s) + SECS ))
running() { [ "$(date +%s)" -lt $END ]; }

echo "# soak: $SECS seconds"
rm -rf $W
mkdir -p $W/ext4 $W/xfs $W/btrfs
ip link set lo up
modprobe loop

# An ext4 and an xfs for stress-ng's file I/O, a btrfs for the module loop.
truncate -s 512M $W/ext4.img $W/xfs.img $W/btrfs.img
mkfs.ext4 -q $W/ext4.img
mkfs.xfs -q $W/xfs.img
mkfs.btrfs -q $W/btrfs.img > /dev/null
mount -o loop $W/ext4.img $W/ext4

# Memory pressure: a cgroup whose memory.max is half of what its stressor
# touches, so that reclaim swaps.
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/soak
echo $((128 * 1024 * 1024)) > /sys/fs/cgroup/soak/memory.max

echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

# Every memory fault point, once in a hundred hits, in stress-ng and its
# workers only (they are named stress-ng-STRESSOR).
check "memory faults armed for stress-ng*" \
	sh -c "echo 'class memory probability 1 comm stress-ng*' > $D/dynamic_faults"

# The stress-ng mix, on ext4.
stress-ng --temp-path $W/ext4 --timeout ${SECS}s --oomable \
	--fork 1 --exec 1 --mmap 1 --fault 1 --pipe 1 \
	--sock 1 --sock-domain ipv4 --udp 1 --unix 1 \
	--hdd 1 --hdd-bytes 16M --dentry 1 --dir 1 --link 1 \
	--memfd 1 --tmpfs 1 --madvise 1 \
	--vm 1 --vm-bytes 64M --vm-madvise hugepage --numa 1 \
	> $W/stress-ng.log 2>&1 &
STRESS=$!
sh -c "echo \$\$ > /sys/fs/cgroup/soak/cgroup.procs
	exec stress-ng --timeout ${SECS}s --oomable --vm 1 --vm-bytes 256M --vm-keep" \
	> $W/stress-ng-cgroup.log 2>&1 &
PRESSURE=$!

# repeat NAME ROUND: ROUND again and again until the soak's time is up,
# in the background; how many rounds ran goes to $W/NAME.count.
repeat() {
	(
		n=0
		while running; do
			$2
			n=$((n + 1))
		done
		echo "$n" > $W/$1.count
	) > $W/$1.log 2>&1 &
}

# xfs and btrfs: loaded, mounted, used, unmounted and unloaded in turn;
# stress-ng does file I/O on the xfs while it is mounted.
fs_round() {
	modprobe xfs && mount -o loop $W/xfs.img $W/xfs &&
		stress-ng --temp-path $W/xfs --timeout 10s --hdd 1 \
			--hdd-bytes 16M --dir 1 > /dev/null 2>&1
	umount $W/xfs; modprobe -r xfs
	modprobe btrfs && mount -o loop $W/btrfs.img $W/btrfs &&
		dd if=/dev/zero of=$W/btrfs/f bs=1M count=16 2>/dev/null &&
		rm $W/btrfs/f
	umount $W/btrfs; modprobe -r btrfs
}

# The test modules, loaded and unloaded.
module_round() {
	insmod $M/codetag_test_type.ko && insmod $M/codetag_test_tags.ko &&
		rmmod codetag_test_tags
	rmmod codetag_test_type
	insmod $M/codetag_test_wait.ko && rmmod codetag_test_wait
	insmod $M/codetag_test_fault.ko && rmmod codetag_test_fault
}

# alloc_tags.ctx and time_stats sites enabled and disabled, the profiling
# sysctl switched off and on.
control_round() {
	echo "file fs/ext4/* enable" > $D/alloc_tags.ctx
	echo enable > $D/time_stats
	echo 0 > /proc/sys/vm/mem_profiling
	sleep 1
	echo 1 > /proc/sys/vm/mem_profiling
	echo "file fs/ext4/* disable" > $D/alloc_tags.ctx
	echo disable > $D/time_stats
	sleep 1
}

# Every file the applications keep, read.
FILES="/proc/allocinfo $D/alloc_tags $D/alloc_tags.summary $D/alloc_tags.ctx
	$D/alloc_tags.ctx_max $D/dynamic_faults $D/time_stats $D/error_codes
	$(find $D/codetag -type f)"
read_round() {
	for f in $FILES; do
		cat "$f" > /dev/null || echo "# soak: reading $f failed"
	done
}

repeat fs fs_round
repeat modules module_round
repeat control control_round
repeat reads read_round

wait $STRESS
echo "# stress-ng exited with status $? (faults make stressors fail); its summary:"
tail -5 $W/stress-ng.log | sed 's/^/#   /'
wait $PRESSURE
wait
echo "# loops: $(cat $W/fs.count) xfs/btrfs rounds, $(cat $W/modules.count) module rounds, $(cat $W/control.count) control rounds, $(cat $W/reads.count) rounds of reads"
grep "faults:[1-9]" $D/dynamic_faults | awk '{ h += substr($NF, 8) } END { print "# " NR " fault points injected " h " faults" }'
echo 'class memory disable' > $D/dynamic_faults

check "the soak ran every loop at least once" \
	sh -c "[ $(cat $W/fs.count) -ge 1 ] && [ $(cat $W/modules.count) -ge 1 ] && [ $(cat $W/control.count) -ge 1 ] && [ $(cat $W/reads.count) -ge 1 ]"
check "faults were injected into stress-ng" grep -q "faults:[1-9]" $D/dynamic_faults
check "memory.max reclaim swapped" [ "$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)" -gt 0 ]

# The filesystems are clean.
umount $W/ext4
# clean_fs CHECKER...: CHECKER finds nothing to repair; its report on failure.
clean_fs() {
	"$@" > $W/fsck.log 2>&1 && return 0
	tail -20 $W/fsck.log | sed 's/^/#   /'
	return 1
}
check "fsck -n: the ext4 is clean" clean_fs e2fsck -fn $W/ext4.img
check "xfs_repair -n: the xfs is clean" clean_fs xfs_repair -n $W/xfs.img
check "btrfs check: the btrfs is clean" clean_fs btrfs check --readonly $W/btrfs.img
rmdir /sys/fs/cgroup/soak

check "profiling is on again" [ "$(cat /proc/sys/vm/mem_profiling)" = 1 ]
check "no site went negative" no_negative_sites

# The page allocator's sites account for the memory in use, as in
# 20-alloc-tag.t, within 10% either way: what was allocated while
# profiling was off is the part allowed to be missing.
sync
echo 3 > /proc/sys/vm/drop_caches
charged=$(awk '$1 == "page_bytes" { printf "%d", $2 / 1024 }' $D/alloc_tags.summary)
early=$(awk '$1 == "early_page_bytes" { printf "%d", $2 / 1024 }' $D/alloc_tags.summary)
used=$(( $(meminfo MemTotal) - $(meminfo MemFree) - $(free_lists_kb) - early ))
pct=$(( charged * 100 / used ))
check "the page allocator's sites hold the memory in use to within 10% ($charged of $used kB, $pct%)" \
	[ $pct -ge 90 -a $pct -le 110 ]
