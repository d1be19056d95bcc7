#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run in its own boot, with sysctl.vm.mem_profiling=0: no allocation
# records a tag until profiling is first switched on, and the frees look
# for none. Memory faults must then be injected at every kind of
# allocation, and profiling switched on later must charge exactly and
# never see a free of an allocation it did not charge.

. /tests/lib.sh
D=/sys/kernel/debug
A=$D/alloc_tags
F=$D/dynamic_faults
T=$D/codetag_test_fault
M=/modules

check_eq "booted with profiling off" "$(cat /proc/sys/vm/mem_profiling)" 0
check "nothing is charged" \
	sh -c "! grep -qv '^0B 0 ' $A"

insmod $M/codetag_test_fault.ko
check "the test operation succeeds" sh -c "echo 1 > $T/run"

# Arming a point makes the allocators test for it:
# kmalloc, kstrdup, kmem_cache_alloc, alloc_pages, vmalloc, alloc_percpu.
grep "module:codetag_test_fault func:fault_op " $F | cut -d' ' -f1 > /tmp/sites
sweep_ok=1
while read -r site; do
	fail_site_once "$site" || sweep_ok=0
done < /tmp/sites
check_eq "the operation has 6 allocation sites" "$(wc -l < /tmp/sites)" 6
check "with profiling never on, a fault at each site fails the operation (-ENOMEM)" \
	[ $sweep_ok = 1 ]
check "disarmed, the operation succeeds again" sh -c "echo 1 > $T/run"
check "still nothing is charged" \
	sh -c "! grep -qv '^0B 0 ' $A"
vector_bytes() { awk '$1 == "slab_vector_bytes" { print $2 }' $A.summary; }
check_eq "with profiling never on, no slab has a vector of tags" "$(vector_bytes)" 0

# Profiling switched on: what is allocated from then on is charged
# exactly, and frees of what was allocated before change nothing.
echo 1 > /proc/sys/vm/mem_profiling
insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
echo 16 > $D/codetag_test_leak
check "16 pages leaked after switching on are charged: 64KiB 16" \
	grep -q '^64KiB 16 .*module:codetag_test_leak func:leak_pages$' $A
stride=$(kmalloc_stride 128)
check "16 objects leaked after switching on are charged: $((16 * stride >> 10))KiB 16" \
	grep -q "^$((16 * stride >> 10))KiB 16 .*module:codetag_test_leak func:leak_objects\$" $A
check "their slabs got vectors of tags" [ "$(vector_bytes)" -gt 0 ]
check "the operation leaves its sites at 0 calls" sh -c "
	echo 1 > $T/run &&
	[ \$(grep 'module:codetag_test_fault ' $A | awk '{ s += \$2 } END { print s + 0 }') = 0 ]"
# Free much of what boot allocated, uncharged: no counter may go below 0.
ls -R /sys > /dev/null 2>&1
echo 3 > /proc/sys/vm/drop_caches
rmmod codetag_test_fault
check "no site's counters went below 0 freeing boot's allocations" no_negative_sites
check "kernel sites are charged now" \
	sh -c "[ \$(awk 'NR > 2 && \$2 > 0' /proc/allocinfo | wc -l) -gt 10 ]"

# A swap device made active before profiling was first switched on (the
# distro guest's, swapon at boot) records its slots' sites from then on:
# a process's memory pushed to swap and read back stays charged to the
# site that allocated it, not to the swap-in path.
if grep -q '^/dev/vdb ' /proc/swaps; then
	MIB=32
	site_growth() {
		awk 'NR == FNR { if (FNR > 2) a[$3 " " $NF] += $1; next }
		     FNR > 2 { b[$3 " " $NF] += $1 }
		     END { for (k in b) if (b[k] - a[k] > best) { best = b[k] - a[k]; s = k }
			   print s; print best + 0 }' "$1" /proc/allocinfo
	}
	cp /proc/allocinfo /tmp/ai0
	mkdir -p /sys/fs/cgroup
	grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/offswap
	rm -f /tmp/mh.out
	sh -c "echo \$\$ > /sys/fs/cgroup/offswap/cgroup.procs; exec memhold $MIB nohuge > /tmp/mh.out" &
	holder=$!
	n=0
	while ! grep -q ready /tmp/mh.out && [ $n -lt 120 ]; do sleep 1; n=$((n + 1)); done
	site_growth /tmp/ai0 > /tmp/site
	site=$(head -1 /tmp/site)
	echo "# the holder's pages are charged to $site ($(tail -1 /tmp/site) bytes)"
	check "the holder's $MIB MiB are charged to one site" \
		[ "$(tail -1 /tmp/site)" -ge $((MIB * 1024 * 1024 * 9 / 10)) ]
	echo $((8 * 1024 * 1024)) > /sys/fs/cgroup/offswap/memory.max
	swapped=$(awk '/^VmSwap:/ { print $2 }' /proc/$holder/status)
	check "memory.max pushed the holder to swap ($swapped kB)" \
		[ "${swapped:-0}" -ge $((MIB * 1024 / 2)) ]
	echo max > /sys/fs/cgroup/offswap/memory.max
	kill -USR1 $holder
	n=0
	while ! grep -q '^verified ' /tmp/mh.out && [ $n -lt 120 ]; do sleep 1; n=$((n + 1)); done
	check "read back from swap, the holder's data is intact" grep -q '^verified ' /tmp/mh.out
	bytes=$(awk -v k="$site" 'NR > 2 && $3 " " $NF == k { s += $1 } END { print s + 0 }' /proc/allocinfo)
	check "swapped in, the holder's pages are charged to its site again ($bytes bytes)" \
		[ "$bytes" -ge $((MIB * 1024 * 1024 * 9 / 10)) ]
	kill $holder
	wait $holder 2>/dev/null
	rmdir /sys/fs/cgroup/offswap
else
	echo "# no swap device in this guest: the swap check runs on the distro guest"
fi

echo 0 > /proc/sys/vm/mem_profiling
check "switched off again, allocations still work" sh -c "ls -R /sys > /dev/null 2>&1"
