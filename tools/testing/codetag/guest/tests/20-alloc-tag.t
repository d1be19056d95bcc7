#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Allocation profiling seen from a shell: the report files and their
# formats, real kernel call sites, a leak that grows, a module unloaded
# with live allocations, the sysctl, and how much of the memory in use is
# charged to a call site.

. /tests/lib.sh
D=/sys/kernel/debug
A=$D/alloc_tags
P=/proc/allocinfo
M=/modules

check "alloc_tags and allocinfo are root-only (0400)" \
	[ "$(stat -c %a $A)$(stat -c %a $P)" = 400400 ]
check_eq "allocinfo starts with upstream's header" \
	"$(head -2 $P)" "allocinfo - version: 2.0
#     <size>  <calls> <tag info>"
check "every allocinfo line parses: size, calls, file:line [module] func:F [accurate:no]" \
	awk 'NR > 2 && !/^ *[0-9]+ +[0-9]+ [^ ]+:[0-9]+ (\[[a-z0-9_]+\] )?func:[A-Za-z0-9_.]+( accurate:no)?$/ { bad = 1; print "# " $0 }
	     END { exit bad }' $P
echo "# sites marked accurate:no: $(grep -c ' accurate:no$' $P)"
check "every alloc_tags line parses: human size, calls, file:line module:M func:F" \
	awk '!/^[0-9]+(B|KiB|MiB|GiB|TiB) [0-9]+ [^ ]+:[0-9]+ module:[a-z0-9_]+ func:[A-Za-z0-9_.]+( \[unloaded\])?$/ { bad = 1; print "# " $0 }
	     END { exit bad }' $A
check "the two files list the same sites" \
	[ "$(wc -l < $A)" -eq $(( $(wc -l < $P) - 2 )) ]

sort -hr $A > /tmp/sorted
head /tmp/sorted > /tmp/top
echo "# sort -hr $A | head"
sed 's/^/#   /' /tmp/top
# sort -h must read the sizes as sizes: largest first through the whole
# list, whatever their units.
check "'sort -hr alloc_tags | head' lists the ten largest sites, largest first" \
	awk 'function bytes(s, n) {
		n = s + 0
		if (s ~ /GiB$/) n *= 1073741824
		else if (s ~ /MiB$/) n *= 1048576
		else if (s ~ /KiB$/) n *= 1024
		else if (s !~ /[0-9]B$/) bad = 1
		return n
	     }
	     { b = bytes($1); if (NR > 1 && b > last) bad = 1; last = b }
	     END { exit bad || NR < 10 }' /tmp/sorted
check "slab pages are charged to mm/slub.c, module slub, func alloc_slab_page" \
	grep -Eq '^[1-9][0-9]*(KiB|MiB) [1-9][0-9]* mm/slub.c:[0-9]+ module:slub func:alloc_slab_page$' $A
sh -c 'sh -c true'
check "page tables are charged to include/asm-generic/pgalloc.h, module $PTE_MODULE" \
	grep -Eq "^[1-9][0-9]*(KiB|MiB) [1-9][0-9]* include/asm-generic/pgalloc.h:[0-9]+ module:$PTE_MODULE func:__pte_alloc_one\$" $A
check "slab objects are charged to their callers (fs/dcache.c, func __d_alloc)" \
	grep -Eq '^[1-9][0-9]*(B|KiB|MiB) [1-9][0-9]* fs/dcache.c:[0-9]+ module:dcache func:__d_alloc$' $A
check "vmalloc areas are charged to their callers (kernel/fork.c, func alloc_thread_stack_node)" \
	grep -Eq '^[1-9][0-9]*(KiB|MiB) [1-9][0-9]* kernel/fork.c:[0-9]+ module:fork func:alloc_thread_stack_node$' $A
check "per-CPU allocations are charged to their callers (fs/namespace.c, func alloc_vfsmnt)" \
	grep -Eq '^[1-9][0-9]*(B|KiB) [1-9][0-9]* fs/namespace.c:[0-9]+ module:namespace func:alloc_vfsmnt$' $A
check_eq "alloc_tags.summary is root-only (0400)" "$(stat -c %a $A.summary)" 400
# Counters move between two reads: the summary is checked to within 5%.
check "alloc_tags.summary's totals add up to allocinfo's" \
	awk -v want="$(awk 'NR > 2 { s += $1 } END { print s }' $P)" \
	    '{ v[$1] = $2 } END { t = v["page_bytes"] + v["object_bytes"]; exit !(t > want * 0.95 && t < want * 1.05) }' $A.summary

# How much of what the page allocator has handed out is charged? Pages on
# the per-CPU free lists are free, but MemFree does not count them; pages
# in use before page tags could be kept (early_page_bytes: page tags in
# page_ext) can never be charged.
charged=$(awk '$1 == "page_bytes" { printf "%d", $2 / 1024 }' $A.summary)
early=$(awk '$1 == "early_page_bytes" { printf "%d", $2 / 1024 }' $A.summary)
pcp=$(free_lists_kb)
used=$(( $(meminfo MemTotal) - $(meminfo MemFree) - pcp - early ))
pct=$(( charged * 100 / used ))
echo "# charged to page allocator call sites: $charged kB of $used kB in use ($pct%; $pcp kB on per-CPU free lists and $early kB in use before page tags left out)"
check "alloc_tags.summary says what was in use before page tags" [ -n "$early" ]
# Slab objects keep their tags in vectors outside the objects, allocated
# while profiling is on; at boot none of them fails.
sed 's/^/# summary: /' $A.summary | grep -v ' negative '
check "slabs keep tags in vectors, and every vector was allocated" \
	awk '$1 == "slab_vector_bytes" { b = $2 } $1 == "slab_vectors_failed" { f = $2 }
	     END { exit !(b > 0 && f == 0) }' $A.summary
check "at least 90% of the memory in use is charged to a call site ($pct%)" [ $pct -ge 90 ]

# A leak grows on one line of the leaking module.
insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
leak_line() { grep 'codetag_test_leak.c:[0-9]* module:codetag_test_leak func:leak_pages' $A; }
echo 16 > $D/codetag_test_leak
l1=$(leak_line)
echo 16 > $D/codetag_test_leak
l2=$(leak_line)
echo "# $l1"
echo "# $l2"
check_eq "a leak of 16 pages shows on the leaking line" "${l1%% *} $(echo $l1 | cut -d' ' -f2)" "64KiB 16"
check_eq "... and grows to 32 pages" "${l2%% *} $(echo $l2 | cut -d' ' -f2)" "128KiB 32"
check "allocinfo names the module in brackets" \
	grep -Eq '^ +131072 +32 tools/testing/codetag/modules/codetag_test_leak.c:[0-9]+ \[codetag_test_leak\] func:leak_pages$' $P
stride=$(kmalloc_stride 128)
check "a slab leak grows on its own line: 32 objects of kmalloc-128's $stride bytes" \
	grep -Eq "^$((32 * stride >> 10))KiB 32 tools/testing/codetag/modules/codetag_test_leak.c:[0-9]+ module:codetag_test_leak func:leak_objects\$" $A

# Unloaded with live allocations: kept, logged, marked; freed later.
dmesg_mark
rmmod codetag_test_leak
check "unloading with live allocations is logged with the bytes" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'codetag_test_leak: unloaded with $((131072 + 32 * stride)) bytes in 64 allocations still live'"
check "its sites stay listed, marked [unloaded]" \
	sh -c "grep -q '^128KiB 32 .*module:codetag_test_leak func:leak_pages \[unloaded\]$' $A &&
	       grep -q '^$((32 * stride >> 10))KiB 32 .*module:codetag_test_leak func:leak_objects \[unloaded\]$' $A"
echo 1 > $D/codetag_test_holder
# The kept tags go 5 s after the unload at the earliest, once all is
# freed: on a slow guest, that may be before this reading. Their release
# is logged only when every kept site is back at zero.
check "freeing them after the unload discharges the kept sites" \
	sh -c "{ grep -q '^0B 0 .*module:codetag_test_leak func:leak_pages \[unloaded\]$' $A &&
		 grep -q '^0B 0 .*module:codetag_test_leak func:leak_objects \[unloaded\]$' $A; } ||
	       { ! grep -q codetag_test_leak $A &&
		 dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'codetag_test_leak: last allocation freed'; }"
sleep 6
check "and the kept tags are released once all is freed" \
	sh -c "! grep -q codetag_test_leak $A && dmesg | grep -q 'codetag_test_leak: last allocation freed'"
rmmod codetag_test_holder

# The sysctl switches profiling off and on.
leak_sites_empty() {
	grep 'module:codetag_test_leak func:leak_pages' $A | grep -q '^0B 0 ' &&
		grep 'module:codetag_test_leak func:leak_objects' $A | grep -q '^0B 0 '
}
S=/proc/sys/vm/mem_profiling
check_eq "vm.mem_profiling is on by default" "$(cat $S)" 1
insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
echo 0 > $S
check_eq "echo 0 > /proc/sys/vm/mem_profiling switches it off" "$(cat $S)" 0
echo 4 > $D/codetag_test_leak
check "allocations made while off are not charged" leak_sites_empty
echo 1 > $S
check_eq "echo 1 switches it back on" "$(cat $S)" 1
echo 1 > $D/codetag_test_holder
check "freeing them while on changes no counter" leak_sites_empty
rmmod codetag_test_leak
rmmod codetag_test_holder
check "no site has negative or absurd counts" \
	awk 'NR > 2 && ($1 < 0 || $2 < 0 || $1 > 1099511627776) { bad = 1 } END { exit bad }' $P

# show_mem(), here from sysrq-m, ends with the largest sites.
echo m > /proc/sysrq-trigger
check "show_mem() lists the ten largest allocation sites" \
	sh -c "dmesg | sed -n '/largest allocation sites/,\$p' | grep -Ec '^\[ *[0-9.]+\] alloc_tag: +[0-9]+ +[0-9]+ [^ ]+:[0-9]+ module:' | grep -qx 10"

if [ -n "$PROFILING_DEBUG" ]; then
	check "debug: every allocation since boot had a tag" \
		sh -c "! dmesg | grep 'alloc_tag: allocation with no tag'"
	dmesg | grep 'alloc_tag: allocation with no tag' | sed 's/^/# /'
fi
