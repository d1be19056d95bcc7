#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The soak, on a distro flavour (in "make check" distro, in "make soak"
# distro-debug, with KASAN, UBSAN, lockdep and DEBUG_VM):
# codetag.soak=SECONDS (300 by default) of a stress-ng mix,
# while memory faults are injected into stress-ng's workers, modules and
# file systems come and go, every application's controls are switched and
# its files read. Then: the mix ran to the end, the filesystems are clean,
# no counter is negative, the modules unloaded left nothing charged, the
# page allocator's sites account for the memory in use; run.sh's splat check follows, with allocation failure
# reports allowed (ALLOC_FAILURES_EXPECTED).

. /tests/lib.sh
SECS=$(sed -n 's/.*codetag\.soak=\([0-9]*\).*/\1/p' /proc/cmdline)
SECS=${SECS:-300}
D=/sys/kernel/debug
M=/modules
W=/var/tmp/soak
running() { [ "$(date +%s)" -lt $END ]; }

echo "# soak: $SECS seconds"
# pages_moved: pages the page allocator has handed out and taken back.
pages_moved() {
	awk '$1 ~ /^pgalloc_/ { a += $2 } $1 == "pgfree" { f = $2 }
	     END { printf "%d %d\n", a, f }' /proc/vmstat
}
set -- $(pages_moved)
PGALLOC0=$1
PGFREE0=$2
rm -rf $W
mkdir -p $W/ext4 $W/xfs $W/btrfs
ip link set lo up
modprobe loop

# An ext4, an xfs and a btrfs for the file system loop.
truncate -s 512M $W/ext4.img $W/xfs.img $W/btrfs.img
mkfs.ext4 -q $W/ext4.img
mkfs.xfs -q $W/xfs.img
mkfs.btrfs -q $W/btrfs.img > /dev/null
mount -o loop $W/ext4.img $W/ext4

# Memory pressure: a cgroup whose memory.max is half of what its holder
# holds, so that reclaim swaps. memhold, not stress-ng: the faults injected
# into stress-ng would end it. Small enough, and started early enough,
# that a debug kernel under emulation fills it and reads it back through
# swap a few times in five minutes.
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/soak
echo $((32 * 1024 * 1024)) > /sys/fs/cgroup/soak/memory.max
sh -c "echo \$\$ > /sys/fs/cgroup/soak/cgroup.procs; exec memhold 64 nohuge" \
	> $W/memhold.log 2>&1 &
PRESSURE=$!

echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

# Huge pages split while other threads lock and unlock their tails, on
# this kernel, before any fault is armed (codetag_test_split).
set -- $(split_under_lock 20)
check "20 huge pages split under lock_page(): every locker woke and stopped ($*)" \
	sh -c "[ '$2' = 20 ] && [ '$8' = 0 ] && [ '${4:-0}' -gt 0 ]"

# Every memory fault point, once in a hundred hits, in stress-ng's workers
# only (they are named stress-ng-STRESSOR): a fault in the parent, or in
# its exec, would end the whole mix. Armed before the mix starts, and the
# soak's time counted from then: arming patches the branch of every
# allocation site in the kernel, one after the other, and each patch
# waits for both vCPUs: on a debug kernel under emulation, with the mix
# keeping them busy, arming would take most of the soak.
armed=$(date +%s)
check "memory faults armed for stress-ng-*" \
	sh -c "echo 'class memory probability 1 comm stress-ng-*' > $D/dynamic_faults"
echo "# arming $(grep -c 'class:memory' $D/dynamic_faults) memory fault points took $(( $(date +%s) - armed )) s"
END=$(( $(date +%s) + SECS ))

# The stress-ng mix. Its files are on tmpfs: ext4 and xfs record a
# filesystem error, by design, when an allocation inside a journal
# transaction fails (ext4_evict_inode() cannot start its handle, say),
# and fsck then finds what they could not finish. Their file I/O comes
# from fs_round, without faults. As an unprivileged user, like the
# programs it stands for. Its exec comes from exec_round, without faults
# too: TOMOYO, which Debian's kernel starts beside AppArmor, panics when an
# allocation fails while it checks an exec and no policy of its is loaded
# (tomoyo_warn_oom()).
# stress-ng gives up after five failures of a stressor, and the faults
# make stressors fail (a stressor killed while it counts its operations
# fails stress-ng's own metrics check): a mix that gives up before the
# soak's time is up is started again for the time left. Each run has
# its log.
stress_mix() {
	runs=0
	while left=$((END - $(date +%s))); [ $left -gt 5 ]; do
		runs=$((runs + 1))
		as_user stress-ng --temp-path /tmp --timeout ${left}s --oomable \
			--fork 1 --mmap 1 --fault 1 --pipe 1 \
			--sock 1 --sock-domain ipv4 --udp 1 --sockpair 1 \
			--hdd 1 --hdd-bytes 16M --dentry 1 --dir 1 --link 1 \
			--memfd 1 --tmpfs 1 --madvise 1 \
			--vm 1 --vm-bytes 64M --vm-madvise hugepage --numa 1 \
			> $W/stress-ng.$runs.log 2>&1
		echo "$? after $((left - END + $(date +%s))) s" >> $W/stress-ng.status
		sleep 1
	done
	echo $runs > $W/stress-ng.runs
}
stress_mix &
STRESS=$!

# repeat NAME ROUND: ROUND again and again until the soak's time is up,
# in the background; how many rounds ran goes to $W/NAME.count, and the
# loop's pid to REPEATS.
REPEATS=
repeat() {
	(
		n=0
		while running; do
			$2
			n=$((n + 1))
		done
		echo "$n" > $W/$1.count
	) > $W/$1.log 2>&1 &
	REPEATS="$REPEATS $!"
}

# File I/O on the ext4; xfs and btrfs loaded, mounted, used, unmounted
# and unloaded in turn.
# io_round DIR: files written, linked and removed, directories made.
io_round() {
	mkdir -p $1/d &&
	for i in 1 2 3 4 5 6 7 8; do
		dd if=/dev/zero of=$1/d/f$i bs=1M count=2 2>/dev/null &&
			mkdir -p $1/d/dir$i/a/b && ln $1/d/f$i $1/d/dir$i/l
	done
	rm -rf $1/d
}
fs_round() {
	io_round $W/ext4
	modprobe xfs && mount -o loop $W/xfs.img $W/xfs && io_round $W/xfs
	umount $W/xfs; modprobe -r xfs
	modprobe btrfs && mount -o loop $W/btrfs.img $W/btrfs &&
		dd if=/dev/zero of=$W/btrfs/f bs=1M count=16 2>/dev/null &&
		rm $W/btrfs/f
	umount $W/btrfs; modprobe -r btrfs
}

# The holder in the cgroup reads all its memory back, which swaps in what
# reclaim swapped out, and reclaim swaps out again.
pressure_round() {
	# A signal before memhold is ready would end it.
	grep -q ready $W/memhold.log && kill -USR1 $PRESSURE
	sleep 2
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

# exec_round: a program started, as that user.
exec_round() { as_user /bin/true; }

repeat exec exec_round
repeat fs fs_round
repeat pressure pressure_round
repeat modules module_round
repeat control control_round
repeat reads read_round

wait $STRESS
ended=$(date +%s)
runs=$(cat $W/stress-ng.runs)
echo "# stress-ng ran $runs time(s), exit status and time of each: $(paste -sd, $W/stress-ng.status) (faults make stressors fail); the first run's summary:"
tail -5 $W/stress-ng.1.log | sed 's/^/#   /'
wait $REPEATS
check "the stress-ng mix ran until the soak's time was up ($runs run(s), $((END - ended)) s early)" \
	sh -c "[ '$runs' -ge 1 ] && [ $ended -ge $((END - 6)) ]"
check "stress-ng ran every stressor of the mix" \
	sh -c "! cat $W/stress-ng.*.log | grep 'skipping the stressor' | sed 's/^/#   /' | grep ."
echo "# loops: $(cat $W/exec.count) execs, $(cat $W/fs.count) xfs/btrfs rounds, $(cat $W/modules.count) module rounds, $(cat $W/control.count) control rounds, $(cat $W/reads.count) rounds of reads"
grep "faults:[1-9]" $D/dynamic_faults | awk '{ h += substr($NF, 8) } END { print "# " NR " fault points injected " h " faults" }'
echo 'class memory disable' > $D/dynamic_faults

check "the soak ran every loop at least once" \
	sh -c "[ $(cat $W/exec.count) -ge 1 ] && [ $(cat $W/fs.count) -ge 1 ] && [ $(cat $W/modules.count) -ge 1 ] && [ $(cat $W/control.count) -ge 1 ] && [ $(cat $W/reads.count) -ge 1 ]"
check "faults were injected into stress-ng" grep -q "faults:[1-9]" $D/dynamic_faults
check "memory.max reclaim swapped" [ "$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)" -gt 0 ]
check "the holder read its memory back intact ($(grep -c '^verified' $W/memhold.log) reads)" \
	sh -c "grep -q '^verified' $W/memhold.log && ! grep -q '^corrupt' $W/memhold.log"
kill $PRESSURE
wait $PRESSURE 2>/dev/null

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
set -- $(pages_moved)
echo "# the page allocator handed out $(($1 - PGALLOC0)) pages and took back $(($2 - PGFREE0)) during the soak"

# Every module the soak loaded is gone (test modules, xfs, btrfs and what
# they pulled in): whatever they allocated is freed, so none of their
# sites may still hold bytes or calls once RCU's callbacks have run. A
# site above zero is a free that discharged nothing.
# gone_module_sites: allocinfo's lines of modules no longer loaded that
# still hold something.
gone_module_sites() {
	awk 'NR == FNR { loaded["[" $1 "]"] = 1; next }
	     FNR > 2 && $4 ~ /^\[.*\]$/ && !($4 in loaded) && ($1 != 0 || $2 != 0)' \
		/proc/modules /proc/allocinfo
}
n=0
while [ -n "$(gone_module_sites)" ] && [ $n -lt 30 ]; do
	sleep 1
	n=$((n + 1))
done
gone_module_sites > $W/gone.left
check "the sites of the modules the soak unloaded hold nothing ($(awk '{ s += $1 } END { print s + 0 }' $W/gone.left) bytes at $(wc -l < $W/gone.left) sites left)" \
	[ ! -s $W/gone.left ]
head -20 $W/gone.left | sed 's/^/#   /'

# The page allocator's sites account for the memory in use, within 10%
# either way. Pages in use before page_ext came up were never charged, and
# some of them have been freed since: what is missing may be as large as
# all of them, never more. Pages allocated while control_round had
# profiling off are not charged either: the caches that keep such pages
# without anyone using them are emptied first, the page cache and the
# slab caches (whose shrink also empties KASAN's quarantine of freed
# objects, up to 1/32 of memory, with the slabs they keep).
sync
echo 3 > /proc/sys/vm/drop_caches
for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done
charged=$(awk '$1 == "page_bytes" { printf "%d", $2 / 1024 }' $D/alloc_tags.summary)
early=$(awk '$1 == "early_page_bytes" { printf "%d", $2 / 1024 }' $D/alloc_tags.summary)
used=$(( $(meminfo MemTotal) - $(meminfo MemFree) - $(free_lists_kb) ))
# The pages still in use that were allocated while control_round had
# profiling off are not known here, and depend on when each switch fell:
# below, the sites may miss 15% of what was charged, not 10%.
check "the page allocator's sites hold the memory in use to within 10% over, 15% under ($charged kB of $used, $early of them before page tags)" \
	[ $((charged * 100)) -ge $(((used - early) * 85)) -a $((charged * 100)) -le $((used * 110)) ]

# The control plane's torture, on this kernel too: modules, every
# application's commands, profiling switches and readers, all at once.
sh /tests/80-control-torture.t
