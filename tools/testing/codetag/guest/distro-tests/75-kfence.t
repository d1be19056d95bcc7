#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KFENCE serves one slab allocation in each sample interval from its own
# pages, outside any slab: such an object must be charged to its site
# while it lives and discharged when it is freed, like any other. A test
# module leaks 128-byte objects at one line, with KFENCE sampling every
# millisecond, until KFENCE has served some of them; the line must count
# every one, and nothing once they are freed. Distro flavours only: the
# small guests have no KFENCE.

. /tests/lib.sh
D=/sys/kernel/debug
P=/proc/allocinfo
M=/modules
KO=$D/kfence/objects
SI=/sys/module/kfence/parameters/sample_interval
SIZE=128
STRIDE=$(kmalloc_stride $SIZE)

check "KFENCE is on" sh -c "[ -f $KO ] && [ \$(cat $SI) -gt 0 ]"
[ -f $KO ] || exit 1

# The leaking line: "bytes calls" (nothing if it has no line yet).
# (Upstream 6.12 ends each line with a space.)
leak_line() {
	awk '$NF == "func:leak_objects" && / \[codetag_test_leak\] / { print $1, $2 }' $P
}
# KFENCE's objects allocated by the leaking line: "live freed". Only its
# SIZE-byte objects: not the slab vectors the line's kmalloc() calls
# allocate for new slabs, which have the line on their stacks too and
# live as long as their slabs, nor anything else allocated beneath it.
# With an argument, the records of the live ones, for the log.
ours() {
	awk -v size=$SIZE -v show="${1:-}" 'function flush() {
		if (mine && sized && !vector) {
			if (freed) f++
			else { l++; if (show) printf "%s", rec }
		}
		mine = vector = freed = sized = 0; rec = ""
	     }
	     /^kfence-#/ { flush(); sized = index($0, ", size=" size ",") > 0 }
	     { rec = rec $0 "\n" }
	     /^freed by task/ { freed = 1 }
	     / alloc_slab_obj_exts\+0x/ && !freed { vector = 1 }
	     / leak_objects\+0x/ && !freed { mine = 1 }
	     END { flush(); if (!show) printf "%d %d\n", l, f }' $KO
}

insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
saved=$(cat $SI)
echo 1 > $SI
# Ten objects a write; most writes span a sample interval or more.
n=0
while [ $n -lt 4000 ]; do
	echo 10 > $D/codetag_test_leak
	n=$((n + 10))
	[ $((n % 200)) -eq 0 ] && [ "$(ours | cut -d' ' -f1)" -ge 3 ] && break
done
echo "$saved" > $SI
set -- $(ours)
check "KFENCE served some of the $n objects ($1 of them)" [ "$1" -ge 1 ]
check_eq "the line counts every object, KFENCE's too" "$(leak_line)" \
	"$((n * STRIDE)) $n"

echo 1 > $D/codetag_test_holder
check_eq "freed, KFENCE's objects too, the line holds nothing" "$(leak_line)" "0 0"
set -- $(ours)
check_eq "KFENCE's objects of the line are freed" "$1" 0
[ "$1" -eq 0 ] || ours records | head -60 | detail
check "no site went negative" no_negative_sites
rmmod codetag_test_leak
rmmod codetag_test_holder
