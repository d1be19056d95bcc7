#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data the kernel moves stays charged to the site that allocated it: a
# process holds anonymous memory (memhold), each page mover is forced on
# it (migrate_pages(2), move_pages(2), NUMA balancing, compaction, THP
# split and collapse, of shared memory too, KSM, swap), and the site its pages are charged to
# must keep its bytes while the movers' own files (mm/migrate.c,
# mm/compaction.c, mm/khugepaged.c, mm/ksm.c, mm/swap_state.c) gain none.
# Then a test module's own movable pages go through compaction, and its
# line must keep their bytes and calls; a range that alloc_contig_range()
# takes is charged to the line that took it; data that migrate_vma() moves
# to device memory and back leaves no charge behind. Distro flavours
# only: it needs NUMA, THP, KSM, swap, memory cgroups, contiguous
# allocation and device-private memory.

. /tests/lib.sh
P=/proc/allocinfo
MIB=64
BYTES=$((MIB * 1024 * 1024))
# What may move for other reasons while a mover runs: 5% of the holder.
SLACK=$((BYTES / 20))
THP=/sys/kernel/mm/transparent_hugepage

# snap FILE: bytes per site ("file:line func:F bytes"), sorted.
snap() {
	awk 'NR > 2 { b[$3 " " $NF] += $1 } END { for (k in b) print k, b[k] }' $P |
		sort > "$1"
}
# bytes_of SNAP SITE: the site's bytes in a snapshot (0 if absent).
bytes_of() { awk -v k="$2" '$1 " " $2 == k { print $3; f = 1 } END { if (!f) print 0 }' "$1"; }
# grown_in OLD NEW FILE: bytes the sites of source FILE gained.
grown_in() {
	awk -v f="$3" 'NR == FNR { a[$1 " " $2] = $3; next }
		       index($1, f ":") == 1 { d += $3 - a[$1 " " $2] }
		       END { printf "%d\n", d }' "$1" "$2"
}
# wait_until SECONDS COMMAND...: poll COMMAND once a second.
wait_until() {
	_n=$1
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 1
		_n=$((_n - 1))
	done
	"$@"
}
# ready: the holder has filled its memory and waits; stops the test
# file, with a failure, if the holder died instead.
ready() {
	wait_until 120 sh -c "grep -q ready /tmp/mh.out || ! kill -0 $HOLDER" 2>/dev/null
	grep -q ready /tmp/mh.out && return 0
	notok "memhold $* is ready to be moved: $(cat /tmp/mh.out)"
	exit 1
}
# hold MIB WORDS...: start memhold in the background, wait for it.
hold() {
	rm -f /tmp/mh.out
	memhold "$@" > /tmp/mh.out 2>&1 &
	HOLDER=$!
	ready "$@"
}
# on_node N: at least 90% of the holder's pages are on node N.
on_node() {
	grep -o "N$1=[0-9]*" /proc/$HOLDER/numa_maps |
		awk -F= -v want=$((BYTES / 4096 * 9 / 10)) '{ s += $2 } END { exit !(s >= want) }'
}
# verify: the holder reads its memory back; its data must be intact.
verify() {
	_n=$(grep -c . /tmp/mh.out)
	kill -USR1 $HOLDER
	wait_until 120 sh -c "[ \$(grep -c . /tmp/mh.out) -gt $_n ]" &&
		tail -1 /tmp/mh.out | grep -q '^verified '
}
unhold() { kill $HOLDER; wait $HOLDER 2>/dev/null; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# kept NAME MOVER_FILE...: after mover NAME, the holder's data is intact
# (read back, which swaps in what is out), its site has its bytes of
# before (within SLACK) and the movers' files gained none.
kept() {
	_name=$1
	shift
	check "$_name: the holder's data is intact" verify
	snap /tmp/after
	_b=$(bytes_of /tmp/after "$SITE")
	_d=$((_b - SITE_BYTES))
	if [ ${_d#-} -lt $SLACK ]; then
		ok "$_name: the holder's site keeps its bytes ($_b, was $SITE_BYTES)"
	else
		notok "$_name: the holder's site keeps its bytes ($_b, was $SITE_BYTES)"
	fi
	for _f in "$@"; do
		_g=$(grown_in /tmp/before /tmp/after "$_f")
		check "$_name: $_f gained no bytes of it ($_g)" [ "$_g" -lt $SLACK ]
	done
}

echo "# node sizes: $(grep -h MemTotal /sys/devices/system/node/node*/meminfo | awk '{ printf "%s ", $4 }')kB"
check "the guest has two NUMA nodes" [ -d /sys/devices/system/node/node1 ]
check "swap is on" grep -q '^/dev/vdb ' /proc/swaps

# Which site do the holder's pages go to? The one that grows by its size.
echo never > $THP/enabled
snap /tmp/s0
hold $MIB nohuge
snap /tmp/before
awk 'NR == FNR { a[$1 " " $2] = $3; next }
     { d = $3 - a[$1 " " $2]; if (d > best) { best = d; k = $1 " " $2 } }
     END { print k; print best }' /tmp/s0 /tmp/before > /tmp/site
SITE=$(head -1 /tmp/site)
SITE_BYTES=$(bytes_of /tmp/before "$SITE")
echo "# the holder's pages are charged to $SITE"
check "the holder's $MIB MiB are charged to one site ($(tail -1 /tmp/site) bytes)" \
	[ "$(tail -1 /tmp/site)" -ge $((BYTES * 9 / 10)) ]

# migrate_pages(2), through numactl's migratepages, both ways.
moved0=$(vmstat pgmigrate_success)
migratepages $HOLDER 0 1 > /dev/null
check "migrate_pages: the holder's pages are on node 1" on_node 1
kept "migrate_pages to node 1" mm/migrate.c
snap /tmp/before
migratepages $HOLDER 1 0 > /dev/null
check "migrate_pages: the pages moved ($(( $(vmstat pgmigrate_success) - moved0 )) migrations)" \
	[ $(( $(vmstat pgmigrate_success) - moved0 )) -ge $((BYTES / 4096)) ]
kept "migrate_pages back to node 0" mm/migrate.c

# move_pages(2): the holder moves its own pages to node 1 and back.
# move_to NODE: ask the holder for its next move, which goes to NODE; it
# tries again for pages that refuse for a moment, and every page must be
# there in the end.
move_to() {
	_n=$(grep -c . /tmp/mh.out)
	kill -USR2 $HOLDER
	wait_until 120 sh -c "[ \$(grep -c . /tmp/mh.out) -gt $_n ]" &&
		tail -1 /tmp/mh.out | grep -q "^moved [0-9]* to node $1, 0 failed"
}
for node in 1 0; do
	snap /tmp/before
	check "move_pages: the holder moved its pages to node $node" move_to $node
	echo "# memhold: $(tail -1 /tmp/mh.out)"
	kept "move_pages to node $node" mm/migrate.c
done

# NUMA balancing: a holder, its pages on node 0, runs on node 1's CPU
# alone and reads its memory until the hinting faults have moved the
# pages to node 1 (mm/memory.c's do_numa_page() through mm/migrate.c).
# A new holder: a task's scan period only adapts from its own faults, and
# the first holder's may have grown to a minute of CPU time while it
# slept; one started after the knobs below begins at the shortest.
unhold
NB=/sys/kernel/debug/sched/numa_balancing
nb_saved="$(cat /proc/sys/kernel/numa_balancing) $(cat $NB/scan_delay_ms $NB/scan_period_min_ms $NB/scan_period_max_ms $NB/scan_size_mb)"
# Scan from the start, as often as allowed, all of the holder each time.
echo 0 > $NB/scan_delay_ms
echo 10 > $NB/scan_period_min_ms
echo 20 > $NB/scan_period_max_ms
echo 256 > $NB/scan_size_mb
echo 1 > /proc/sys/kernel/numa_balancing
# Started on CPU 0 (node 0), it takes its pages there.
taskset -p 1 $$ > /dev/null
hold $MIB nohuge
taskset -p 3 $$ > /dev/null
check "NUMA balancing: a new holder's pages are on node 0" on_node 0
snap /tmp/before
SITE_BYTES=$(bytes_of /tmp/before "$SITE")
numa0=$(vmstat numa_pages_migrated)
pte0=$(vmstat numa_pte_updates)
hint0=$(vmstat numa_hint_faults)
fail0=$(vmstat pgmigrate_fail)
taskset -p 2 $HOLDER > /dev/null
# A page moves on its second hinting fault from node 1 (the first only
# records the new node); a scan is due each 100 ms of the holder's CPU
# time, of which a read takes a few tens.
n=0
while [ $n -lt 200 ] && ! on_node 1; do
	verify
	n=$((n + 1))
done
check "NUMA balancing moved the holder's pages to node 1 ($(( $(vmstat numa_pages_migrated) - numa0 )) pages, $n reads)" \
	on_node 1
# What the scanner and the hinting faults did, for a failure above.
echo "# NUMA balancing: $(( $(vmstat numa_pte_updates) - pte0 )) PTEs marked," \
     "$(( $(vmstat numa_hint_faults) - hint0 )) hinting faults," \
     "$(( $(vmstat pgmigrate_fail) - fail0 )) failed migrations; the holder" \
     "ran on CPU $(awk '{ print $39 }' /proc/$HOLDER/stat); node 1 has" \
     "$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node1/meminfo) kB free"
set -- $nb_saved
echo $1 > /proc/sys/kernel/numa_balancing
echo $2 > $NB/scan_delay_ms
echo $3 > $NB/scan_period_min_ms
echo $4 > $NB/scan_period_max_ms
echo $5 > $NB/scan_size_mb
taskset -p 3 $HOLDER > /dev/null
kept "NUMA balancing" mm/migrate.c

# Compaction: whatever it moves of the holder stays charged.
snap /tmp/before
moved0=$(vmstat pgmigrate_success)
echo 1 > /proc/sys/vm/compact_memory
echo "# compaction migrated $(( $(vmstat pgmigrate_success) - moved0 )) pages"
kept "compaction" mm/compaction.c mm/migrate.c
unhold

# khugepaged: small pages collapsed into huge ones, then split again.
for f in pages_to_scan scan_sleep_millisecs alloc_sleep_millisecs; do
	eval "saved_$f=\$(cat $THP/khugepaged/$f)"
done
echo madvise > $THP/enabled
hold $MIB huge
snap /tmp/before
echo 4096 > $THP/khugepaged/pages_to_scan
echo 0 > $THP/khugepaged/scan_sleep_millisecs
echo 0 > $THP/khugepaged/alloc_sleep_millisecs
anon_huge() { awk '/^AnonHugePages:/ { print $2 }' /proc/$HOLDER/smaps_rollup; }
wait_until 300 sh -c "[ \$(awk '/^AnonHugePages:/ { print \$2 }' /proc/$HOLDER/smaps_rollup) -ge $((MIB * 1024 / 2)) ]"
check "khugepaged collapsed at least half of the holder ($(anon_huge) kB)" \
	[ "$(anon_huge)" -ge $((MIB * 1024 / 2)) ]
for f in pages_to_scan scan_sleep_millisecs alloc_sleep_millisecs; do
	eval "echo \$saved_$f > $THP/khugepaged/$f"
done
kept "khugepaged collapse" mm/khugepaged.c
snap /tmp/before
# A huge page the split finds busy (its refcount not yet settled after the
# collapse) is skipped: split again until none is left.
wait_until 10 sh -c "echo 1 > /sys/kernel/debug/split_huge_pages;
	[ \$(awk '/^AnonHugePages:/ { print \$2 }' /proc/$HOLDER/smaps_rollup) -lt 2048 ]"
check "the huge pages are split ($(anon_huge) kB left)" [ "$(anon_huge)" -lt 2048 ]
kept "THP split" mm/huge_memory.c
unhold
echo madvise > $THP/enabled

# MADV_COLLAPSE of shared memory (collapse_file()): the huge pages that
# replace a memfd's small pages are charged to the site of the small
# ones, as khugepaged's collapse of anonymous memory above, not to
# mm/khugepaged.c's allocation.
SHMIB=16
snap /tmp/s0
shmem_huge0=$(awk '/^ShmemHugePages:/ { print $2 }' /proc/meminfo)
hold $SHMIB shmem collapse
snap /tmp/after
shmem_huge=$(( $(awk '/^ShmemHugePages:/ { print $2 }' /proc/meminfo) - shmem_huge0 ))
check "MADV_COLLAPSE made huge pages of at least half the memfd ($shmem_huge kB)" \
	[ "$shmem_huge" -ge $((SHMIB * 1024 / 2)) ]
awk 'NR == FNR { a[$1 " " $2] = $3; next }
     { d = $3 - a[$1 " " $2]; if (d > best) { best = d; k = $1 " " $2 } }
     END { print k; print best }' /tmp/s0 /tmp/after > /tmp/site
echo "# the collapsed memfd is charged to $(head -1 /tmp/site)"
check "shmem collapse: the memfd's $SHMIB MiB stay charged to one site, not mm/khugepaged.c's ($(tail -1 /tmp/site) bytes)" \
	sh -c "[ $(tail -1 /tmp/site) -ge $((SHMIB * 1024 * 1024 * 9 / 10)) ] && ! head -1 /tmp/site | grep -q '^mm/khugepaged.c:'"
g=$(grown_in /tmp/s0 /tmp/after mm/khugepaged.c)
check "shmem collapse: mm/khugepaged.c gained no bytes of it ($g)" [ "$g" -lt $SLACK ]
check "shmem collapse: the memfd's data is intact" verify
unhold

# KSM: identical pages merged into one; the pages freed leave the site,
# the one kept stays charged to it, and mm/ksm.c gains no page of it.
# ksmd merges a page on the second scan that finds it unchanged: the
# wait is for its full scans, not for a time, and what it saw is shown
# if it merged too little. The holder's pages are alike in runs that no
# KSM page's max_page_sharing limit splits into chains of duplicates.
KSM=/sys/kernel/mm/ksm
ksm() { cat $KSM/$1; }
hold $MIB nohuge same merge
snap /tmp/before
echo 0 > $KSM/sleep_millisecs
echo 10000 > $KSM/pages_to_scan
scans0=$(ksm full_scans)
echo 1 > $KSM/run
WANT_SHARING=$((BYTES / 4096 / 2))
wait_until 600 sh -c "[ \$(cat $KSM/pages_sharing) -ge $WANT_SHARING ] ||
	[ \$(cat $KSM/full_scans) -ge $((scans0 + 4)) ]"
check "KSM merged the holder's pages ($(ksm pages_sharing) sharing, $(( $(ksm full_scans) - scans0 )) full scans)" \
	[ "$(ksm pages_sharing)" -ge $WANT_SHARING ]
if [ "$(ksm pages_sharing)" -lt $WANT_SHARING ]; then
	for f in run full_scans pages_shared pages_sharing pages_unshared pages_volatile \
		 stable_node_chains stable_node_dups merge_across_nodes; do
		[ -e $KSM/$f ] && echo "$f: $(ksm $f)"
	done
	ksmd=$(pgrep -x ksmd)
	echo "ksmd: state $(awk '{ print $3 }' /proc/$ksmd/stat), wchan $(cat /proc/$ksmd/wchan)"
	grep -E '^(VmRSS|VmSwap|RssAnon):' /proc/$HOLDER/status
	grep -E '^(AnonHugePages|Swap|Rss):' /proc/$HOLDER/smaps_rollup
	awk '/^[0-9a-f]+-/ { m = $0 } /^Rss:/ { r = $2 } /^VmFlags:.* mg/ { print m " rss " r " kB: " $0 }' \
		/proc/$HOLDER/smaps
	grep -E '^(MemFree|SwapFree):' /proc/meminfo
	grep -E '^(ksm|pgmajfault|pswp)' /proc/vmstat
fi 2>&1 | detail
snap /tmp/after
b=$(bytes_of /tmp/after "$SITE")
check "KSM: the merged pages left the holder's site ($b of $SITE_BYTES bytes left)" \
	[ "$b" -le $((SITE_BYTES - BYTES / 2)) ]
g=$(grown_in /tmp/before /tmp/after mm/ksm.c)
check "KSM: mm/ksm.c gained no page of it, only its rmap items ($g bytes)" [ "$g" -lt $SLACK ]
check "KSM: the holder's data is intact" verify
echo 2 > /sys/kernel/mm/ksm/run
unhold

# Memory cgroup reclaim under memory.max pushes the holder to swap; read
# back, its pages are charged to its site again, not to the swap code.
mkdir -p /sys/fs/cgroup
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/movers
rm -f /tmp/mh.out
sh -c "echo \$\$ > /sys/fs/cgroup/movers/cgroup.procs; exec memhold $MIB nohuge > /tmp/mh.out" &
HOLDER=$!
ready $MIB nohuge in a cgroup
snap /tmp/before
SITE_BYTES=$(bytes_of /tmp/before "$SITE")
echo $((8 * 1024 * 1024)) > /sys/fs/cgroup/movers/memory.max
swapped() { awk '/^VmSwap:/ { print $2 }' /proc/$HOLDER/status; }
check "memory.max reclaim swapped the holder out ($(swapped) kB)" \
	[ "$(swapped)" -ge $((MIB * 1024 / 2)) ]
snap /tmp/after
b=$(bytes_of /tmp/after "$SITE")
check "swap out: the holder's site let go of the pages swapped out ($b bytes left)" \
	[ "$b" -le $((SITE_BYTES - BYTES / 2)) ]
echo max > /sys/fs/cgroup/movers/memory.max
kept "swap in" mm/swap_state.c mm/vmscan.c
unhold
rmdir /sys/fs/cgroup/movers

# A driver's own movable pages (as balloon drivers and zsmalloc have),
# allocated at one line of a test module: compaction moves them through
# the driver, and they stay charged to that line, bytes and calls.
NPAGES=1024
insmod /modules/codetag_test_movable.ko pages=$NPAGES
MP=/sys/module/codetag_test_movable/parameters
# (Upstream 6.12 ends each line of /proc/allocinfo with a space.)
movable_site() { grep ' func:alloc_movable_page *$' $P; }
site0=$(movable_site | awk '{ print $1, $2 }')
echo "# the module's movable pages: $(movable_site)"
check_eq "the module's $NPAGES pages are charged to its line" "$site0" "$((NPAGES * 4096)) $NPAGES"
snap /tmp/before
tries=0
while [ "$(cat $MP/moved)" -eq 0 ] && [ $tries -lt 5 ]; do
	echo 1 > /proc/sys/vm/compact_memory
	tries=$((tries + 1))
done
check "compaction moved the module's pages ($(cat $MP/moved) moved, $tries runs)" \
	[ "$(cat $MP/moved)" -gt 0 ]
check_eq "the moved pages hold their data" "$(cat $MP/corrupt)" 0
snap /tmp/after
check_eq "the module's line keeps its bytes and calls" \
	"$(movable_site | awk '{ print $1, $2 }')" "$site0"
for f in mm/compaction.c mm/migrate.c; do
	g=$(grown_in /tmp/before /tmp/after $f)
	check "compaction of the module's pages: $f gained none of them ($g bytes)" \
		[ "$g" -lt $((NPAGES * 4096 / 20)) ]
done
rmmod codetag_test_movable
check "unloading the module gives its pages back" \
	sh -c "! grep -q ' func:alloc_movable_page *\$' $P || grep -q '^ *0 *0 .*func:alloc_movable_page *\$' $P"

# Huge pages split while two threads lock and unlock their tail pages
# (codetag_test_split): the split gives each tail its tag reference while
# the tails are locked and waited on, with atomic updates, so that no
# waiter's PG_waiters is lost and every locker stops when told.
shmem_site() { awk '$NF == "func:shmem_alloc_hugefolio" { s += $1 } END { print s + 0 }' $P; }
before=$(shmem_site)
set -- $(split_under_lock 20)
check "20 huge pages split under lock_page(): no round failed, every locker woke and stopped ($*)" \
	sh -c "[ '$2' = 20 ] && [ '$8' = 0 ]"
check "... and at least one was split while the lockers ran ($4 split, $6 waits)" [ "${4:-0}" -gt 0 ]
check_eq "the huge pages' site is back where it was" "$(shmem_site)" "$before"

# A range taken with alloc_contig_range() (codetag_test_contig), as
# virtio-mem and CMA take theirs: it migrates what is in the way, and the
# range is charged to the line that took it until it is given back; the
# line's memory fault point fails the call, with nothing charged.
insmod /modules/codetag_test_contig.ko
CP=/sys/module/codetag_test_contig/parameters/pages
CSRC=tools/testing/codetag/modules/codetag_test_contig.c
contig_line() { awk -v b="$1" '$NF == "func:range_take" && $1 == b { print $3 }' $P; }
contig_bytes() { awk -v l="$1" '$3 == l { print $1 }' $P; }
if echo 512 > $CP; then
	line=$(contig_line $((512 * 4096)))
	check "alloc_contig_range() charges its 512 pages to the line that took them (${line:-none})" \
		[ -n "$line" ]
	echo 0 > $CP
	check_eq "giving the range back discharges that line" "$(contig_bytes "$line")" 0
	echo "file $CSRC line ${line##*:} oneshot" > /sys/kernel/debug/dynamic_faults
	check "the line's armed fault point fails the call" sh -c "! echo 512 > $CP"
	check_eq "... and charges nothing" "$(contig_bytes "$line")" 0
	check "... once: the next call takes the range" sh -c "echo 512 > $CP"
	check_eq "... charged to the line" "$(contig_bytes "$line")" $((512 * 4096))
	echo "file $CSRC disable" > /sys/kernel/debug/dynamic_faults
else
	notok "alloc_contig_range() took 512 pages"
fi
rmmod codetag_test_contig
check_eq "unloading gives the range back" "$(contig_bytes "$line")" ""

# Anonymous memory that migrate_vma() moves to device-private pages
# (ZONE_DEVICE, HMM's test driver) and back. Those pages never reach the
# page allocator's free: a charge moved onto one would stay for ever. So
# once the program has exited and the driver is unloaded (giving back its
# device memory), no site may be left holding the data's bytes: neither
# the site of the program's anonymous memory nor the driver's line that
# allocated the pages the data came back into.
if modprobe test_hmm; then
	snap /tmp/before
	out=$(hmmmove $MIB)
	rc=$?
	check "migrate_vma(): ${out:-hmmmove printed nothing}" [ $rc -eq 0 ]
	rmmod test_hmm
	snap /tmp/after
	awk 'NR == FNR { a[$1 " " $2] = $3; next }
	     { d = $3 - a[$1 " " $2]; if (d > best) { best = d; k = $1 " " $2 } }
	     END { print best + 0, k }' /tmp/before /tmp/after > /tmp/grown
	check "device-private migration leaves no site charged: largest growth $(cat /tmp/grown)" \
		[ "$(cut -d' ' -f1 /tmp/grown)" -lt $SLACK ]
else
	notok "HMM's test driver loads (test_hmm)"
fi

check "no site went negative" no_negative_sites
